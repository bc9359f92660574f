// swift-tools-version: 6.1
import PackageDescription

// A package that uses vidfx as a library, as anyone's would: by path here, by URL elsewhere.
let package = Package(
    name: "Thumbnails",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "vidfx", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "thumbnails",
            dependencies: [
                .product(name: "FrameCore", package: "vidfx"),
                .product(name: "FrameSource", package: "vidfx"),
                .product(name: "Effects", package: "vidfx"),
                .product(name: "Sinks", package: "vidfx"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

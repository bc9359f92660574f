// swift-tools-version: 6.1
import PackageDescription

// A package that uses vidfx as a library, as anyone's would. By path here; by URL and
// version when VIDFX_PACKAGE_URL is set, as scripts/check-consumer.sh does with a tagged
// clone, so that `make test` builds it exactly as a dependent resolved by version.
let vidfx: Package.Dependency = Context.environment["VIDFX_PACKAGE_URL"].flatMap {
    $0.isEmpty ? nil : .package(url: $0, from: "0.1.0")
} ?? .package(name: "vidfx", path: "../..")

let package = Package(
    name: "Thumbnails",
    platforms: [.macOS(.v15)],
    dependencies: [
        vidfx,
    ],
    targets: [
        .executableTarget(
            name: "thumbnails",
            dependencies: [
                .product(name: "FrameCore", package: "vidfx"),
                .product(name: "FrameSource", package: "vidfx"),
                .product(name: "Effects", package: "vidfx"),
                .product(name: "Sinks", package: "vidfx"),
                .product(name: "Render", package: "vidfx"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

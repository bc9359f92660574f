import CPixelKernels

/// The C colour kernels for this CPU (AVX2 where it has it, baseline x86-64 otherwise),
/// picked once. Swift's own loops get the instruction set of the build, and a package
/// that depends on vidfx builds them portable; these run at the same speed either way.
let colorKernels: vfx_color_kernels = vfx_color_kernels_best().pointee

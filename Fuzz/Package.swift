// swift-tools-version:6.0
// Coverage-guided fuzz targets for EMRTDKit (docs/reliability.md, "Fuzzing"). A separate package so
// that no sanitizer flag reaches the main Package.swift: `Fuzz/run` builds it with
// `-sanitize=fuzzer,address`, which instruments the library modules of the main package too.
//
// The main package is reached through the symlink `EMRTDKit` -> `..`: a local-path dependency's
// identity is its folder's name, and the checkout's folder may have any name (even "fuzz", this
// package's own identity).
import PackageDescription

/// One executable per parser or decoder; the name after "fuzz-" is `FuzzTarget`'s raw value.
let targetNames = [
    "tlv", "mrz", "com", "dg1", "dg2", "face-19794", "face-39794", "dg11", "dg12", "dg14", "dg15", "dg16",
    "lds-other", "security-infos", "sod", "x509", "crl", "master-list", "sm-unwrap", "stepup-context", "readers",
    "face-image", "clone-detection", "pem", "chip-answers", "service-request", "options",
]

let package = Package(
    name: "EMRTDFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "EMRTDKit")],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "EMRTDKit", package: "EMRTDKit"),
                .product(name: "EMRTDKitService", package: "EMRTDKit"),
                .product(name: "EMRTDCLI", package: "EMRTDKit"),
            ])
    ]
        + targetNames.map { name in
            .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzSupport"])
        },
    swiftLanguageModes: [.v6]
)

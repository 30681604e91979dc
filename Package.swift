// swift-tools-version:6.0
// EMRTDKit — read and verify ICAO 9303 eMRTDs over PC/SC on Linux.
// Layering (docs/architecture.md §2): dependencies point downward only; Tests/PackageTests keeps this manifest
// equal to what the code imports.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "EMRTDKit",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "emrtd", targets: ["emrtd"]),
        .library(
            name: "EMRTDKit",
            targets: [
                "EMRTDKit", "ASN1TLV", "ISO7816", "MRTDCrypto", "MRTDDocument", "MRTDSecureMessaging",
                "MRTDAccessControl", "MRTDTrust", "MRTDReader", "PCSCTransport", "DocumentGenerator", "VirtualChip",
                "VPCDBridge", "StepUp", "FaceImaging", "CanonicalJSON",
            ]),
        // the kiosk service (`emrtd serve`) and its HTTP server, for programs that host or test the service in process
        .library(name: "EMRTDKitService", targets: ["HTTPServer", "KioskService"]),
        // the `emrtd` command's module (its declarative command model), for the fuzz package's option-parsing target
        .library(name: "EMRTDCLI", targets: ["EMRTDCLI"]),
    ],
    targets: [
        // C libraries
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // pcsc-lite's pkg-config adds -pthread, which SwiftPM rejects with a warning, and its headers include each
        // other without the PCSC/ prefix: CPCSCLiteShims/include forwards those two includes (no unsafeFlags, so
        // other packages can depend on EMRTDKit by version).
        .systemLibrary(name: "CPCSCLite", providers: [.apt(["libpcsclite-dev"])]),
        .target(name: "CPCSCLiteShims", dependencies: ["CPCSCLite"]),
        .systemLibrary(name: "COpenJPEG", pkgConfig: "libopenjp2", providers: [.apt(["libopenjp2-7-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .target(name: "CFaceImagingShims", dependencies: ["COpenJPEG"]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "CMicroHTTPDShims", dependencies: ["CMicroHTTPD"]),
        // prctl(2) is variadic: fixed-argument wrappers for the executable's core-dump protection
        .target(name: "CProcessShims"),
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
        .systemLibrary(name: "CLeptonica", pkgConfig: "lept", providers: [.apt(["libleptonica-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),

        // Pure Swift foundations
        .target(name: "ASN1TLV", swiftSettings: strict),
        // The one JSON policy (sorted keys, unescaped slashes, pretty or compact) of every JSON EMRTDKit writes
        .target(name: "CanonicalJSON", swiftSettings: strict),
        .target(name: "ISO7816", swiftSettings: strict),

        // The only importer of OpenSSL
        .target(name: "MRTDCrypto", dependencies: ["ASN1TLV", "CLibCrypto"], swiftSettings: strict),

        .target(name: "MRTDDocument", dependencies: ["ASN1TLV"], swiftSettings: strict),
        // The only importer of OpenJPEG and libjpeg-turbo
        .target(
            name: "FaceImaging", dependencies: ["COpenJPEG", "CTurboJPEG", "CFaceImagingShims"],
            swiftSettings: strict),
        // The only importer of Tesseract and Leptonica: the MRZ read from a camera or scanner image
        .target(
            name: "MRZCapture", dependencies: ["MRTDDocument", "CTesseract", "CLeptonica"], swiftSettings: strict),
        .target(
            name: "MRTDSecureMessaging", dependencies: ["ASN1TLV", "ISO7816", "MRTDCrypto"], swiftSettings: strict),
        .target(
            name: "MRTDAccessControl",
            dependencies: ["ISO7816", "MRTDCrypto", "MRTDSecureMessaging", "ASN1TLV", "MRTDDocument"],
            swiftSettings: strict),
        .target(
            name: "MRTDTrust", dependencies: ["MRTDDocument", "MRTDCrypto", "ASN1TLV", "CanonicalJSON"],
            swiftSettings: strict),
        .target(
            name: "MRTDReader",
            dependencies: [
                "ISO7816", "ASN1TLV", "MRTDCrypto", "MRTDDocument", "MRTDSecureMessaging",
                "MRTDAccessControl", "MRTDTrust", "FaceImaging", "CanonicalJSON",
            ],
            swiftSettings: strict),

        // The only importer of pcsc-lite
        .target(
            name: "PCSCTransport", dependencies: ["ISO7816", "CPCSCLite", "CPCSCLiteShims"],
            resources: [.embedInCode("Resources/readers.json")],
            swiftSettings: strict),

        // Generated documents for the virtual chip: LDS files, profiles, the test PKI, specimen data, forgeries
        .target(
            name: "DocumentGenerator",
            dependencies: ["MRTDCrypto", "MRTDDocument", "MRTDTrust", "ASN1TLV", "FaceImaging", "CanonicalJSON"],
            swiftSettings: strict),
        // The card: answers APDUs for a generated document
        .target(
            name: "VirtualChip",
            dependencies: [
                "DocumentGenerator", "ISO7816", "MRTDCrypto", "MRTDSecureMessaging", "MRTDDocument", "ASN1TLV",
            ],
            swiftSettings: strict),
        // Connects a card emulator (the virtual chip) to vsmartcard's vpcd over TCP, so pcscd sees it as a card
        .target(name: "VPCDBridge", dependencies: ["ISO7816"], swiftSettings: strict),
        // The only importer of FreeType: specimen data pages with their MRZ in OCR-B, and camera-like distortions
        .target(
            name: "SpecimenImages", dependencies: ["DocumentGenerator", "FaceImaging", "CFreeType"],
            swiftSettings: strict),
        .target(name: "StepUp", dependencies: ["MRTDReader", "CanonicalJSON"], swiftSettings: strict),
        // The only importer of libmicrohttpd
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CMicroHTTPDShims"], swiftSettings: strict),
        // `emrtd serve`'s service: readers, reads, events, retention, authentication (docs/service.md)
        .target(
            name: "KioskService",
            dependencies: [
                "HTTPServer", "ISO7816", "MRTDCrypto", "MRTDDocument", "MRTDAccessControl", "MRTDTrust",
                "MRTDReader", "PCSCTransport", "StepUp", "ASN1TLV", "FaceImaging", "CanonicalJSON", "MRZCapture",
            ],
            // the kiosk page's HTML, CSS and JavaScript and the API's OpenAPI contract (served at GET /v1/openapi.json;
            // docs/openapi.json links to it), embedded in the binary: no files to install beside it
            resources: [
                .embedInCode("Resources/kiosk.html"), .embedInCode("Resources/kiosk-page.css"),
                .embedInCode("Resources/kiosk.js"), .embedInCode("Resources/openapi.json"),
            ],
            swiftSettings: strict),
        // `emrtd bench`'s benchmark (docs/performance.md): reads, primitives, trust store, hostile inputs, memory; its
        // command (options, output) is EMRTDCLI's `BenchCommand`
        .target(
            name: "EMRTDBench",
            dependencies: [
                "ASN1TLV", "CanonicalJSON", "FaceImaging", "ISO7816", "MRTDAccessControl", "MRTDCrypto", "MRTDDocument",
                "MRTDReader", "MRTDSecureMessaging", "MRTDTrust", "MRZCapture", "SpecimenImages", "DocumentGenerator",
                "VirtualChip",
            ],
            swiftSettings: strict),
        .target(
            name: "EMRTDCLI",
            dependencies: [
                "ASN1TLV", "ISO7816", "MRTDCrypto", "MRTDDocument", "MRTDAccessControl", "MRTDTrust", "MRTDReader",
                "PCSCTransport", "DocumentGenerator", "VirtualChip", "VPCDBridge", "StepUp", "FaceImaging",
                "KioskService",
                "HTTPServer", "CanonicalJSON", "MRZCapture", "EMRTDBench",
            ],
            swiftSettings: strict),
        // The umbrella module of the `EMRTDKit` product: re-exports the public API, plus the one-call reads
        .target(
            name: "EMRTDKit",
            dependencies: [
                "ASN1TLV", "CanonicalJSON", "ISO7816", "MRTDAccessControl", "MRTDDocument", "MRTDReader", "MRTDTrust",
                "PCSCTransport", "DocumentGenerator", "VirtualChip", "VPCDBridge",
            ],
            swiftSettings: strict),
        .executableTarget(name: "emrtd", dependencies: ["EMRTDCLI", "CProcessShims"], swiftSettings: strict),

        .target(
            name: "MRTDTestSupport",
            dependencies: ["ASN1TLV", "ISO7816"],
            swiftSettings: strict),

        // Tests (Swift Testing)
        .testTarget(name: "ASN1TLVTests", dependencies: ["ASN1TLV", "MRTDTestSupport"], swiftSettings: strict),
        .testTarget(name: "ISO7816Tests", dependencies: ["ISO7816", "MRTDTestSupport"], swiftSettings: strict),
        .testTarget(name: "MRTDCryptoTests", dependencies: ["MRTDCrypto", "MRTDTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "MRTDSecureMessagingTests",
            dependencies: ["MRTDSecureMessaging", "MRTDCrypto", "ISO7816", "MRTDTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "MRTDAccessControlTests",
            dependencies: [
                "MRTDAccessControl", "MRTDSecureMessaging", "MRTDCrypto", "ISO7816", "ASN1TLV",
                "MRTDDocument", "MRTDTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "MRTDDocumentTests", dependencies: ["MRTDDocument", "ASN1TLV", "MRTDTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "FaceImagingTests",
            dependencies: ["FaceImaging", "MRTDDocument", "MRTDTestSupport", "DocumentGenerator"],
            swiftSettings: strict),
        .testTarget(
            name: "MRZCaptureTests",
            dependencies: ["MRZCapture", "SpecimenImages", "DocumentGenerator", "MRTDDocument", "MRTDTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "MRTDTrustTests",
            dependencies: [
                "MRTDTrust", "MRTDDocument", "MRTDCrypto", "ASN1TLV", "DocumentGenerator", "MRTDTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "MRTDReaderTests",
            dependencies: [
                "MRTDReader", "DocumentGenerator", "VirtualChip", "MRTDTrust", "MRTDAccessControl", "MRTDDocument",
                "ISO7816", "MRTDTestSupport", "FaceImaging",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PCSCTransportTests", dependencies: ["PCSCTransport", "ISO7816", "VPCDBridge", "MRTDTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "VirtualChipTests",
            dependencies: [
                "VirtualChip", "DocumentGenerator", "MRTDSecureMessaging", "MRTDCrypto", "MRTDDocument", "ISO7816",
                "ASN1TLV", "MRTDTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "DocumentGeneratorTests",
            dependencies: [
                "DocumentGenerator", "MRTDCrypto", "MRTDDocument", "MRTDTrust", "ASN1TLV", "MRTDTestSupport",
                "FaceImaging",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "StepUpTests", dependencies: ["StepUp", "EMRTDCLI", "MRTDReader", "VirtualChip", "MRTDTestSupport"],
            swiftSettings: strict),
        .testTarget(name: "PackageTests", dependencies: ["EMRTDKit", "MRTDTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "HTTPServerTests", dependencies: ["HTTPServer", "MRTDTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "KioskServiceTests",
            dependencies: [
                "KioskService", "HTTPServer", "MRTDReader", "emrtd", "MRTDTestSupport", "CanonicalJSON", "ISO7816",
                "MRTDTrust", "PCSCTransport", "DocumentGenerator", "VirtualChip", "MRTDAccessControl", "MRTDDocument",
                "SpecimenImages",
            ],
            // the Selenium script of KioskBrowserTests, run by python3
            exclude: ["Browser"], swiftSettings: strict),
        .testTarget(
            name: "EMRTDCLITests",
            dependencies: [
                "EMRTDCLI", "EMRTDBench", "emrtd", "PCSCTransport", "MRTDTestSupport", "SpecimenImages",
                "DocumentGenerator", "VirtualChip",
            ],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)

import MRTDTrust

/// Builds a trust store from `--trust PATH` (repeatable) and `--ml-signer-root PATH` (repeatable).
enum TrustOptions {
    static let valued: Set<String> = ["trust", "ml-signer-root"]

    struct Failure: Error { var message: String }

    static func store(from a: ParsedArguments) throws(Failure) -> (TrustStore, [TrustStore.Refusal]) {
        var store = TrustStore()
        for root in a.all("ml-signer-root") {
            do { try store.pinMasterListSignerRoot(path: root) } catch {
                throw Failure(message: "--ml-signer-root \(root): \(error)")
            }
        }
        var refused: [TrustStore.Refusal] = []
        for path in a.all("trust") {
            do { refused += try store.load(path: path) } catch {
                throw Failure(message: "--trust \(path): \(error)")
            }
        }
        return (store, refused)
    }
}

import DocumentGenerator

/// Built-in virtual documents by name ("NAME" or "NAME+FORGERY"), with errors in words.
enum VirtualProfiles {
    /// The profile a name refers to (its forgery, if any, checked), or a usage error naming the option.
    static func spec(_ name: String, option: String) throws(CLIError) -> ProfileSpec {
        let parts = name.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let spec = ProfileSpec.named(parts[0]) else {
            var m = "\(option): there is no virtual document named \(Shown.name(parts[0]))"
            if Shown.isSafeName(parts[0]), let s = Suggest.closest(parts[0], among: ProfileSpec.builtIn.map(\.name)) {
                m += " — did you mean '\(s)'?"
            }
            throw CLIError(.unknownProfile, m + " (emrtd demo --list-profiles lists them)", status: .usage)
        }
        if parts.count == 2, Forgery(rawValue: parts[1]) == nil {
            throw CLIError(
                .unknownProfile,
                "\(option): there is no variant \(Shown.name(parts[1])) of '\(parts[0])'; variants: "
                    + Forgery.allCases.map(\.rawValue).joined(separator: ", "), status: .usage)
        }
        return spec
    }

    static func generate(_ name: String, option: String) throws(CLIError) -> GeneratedDocument {
        _ = try spec(name, option: option)
        do { return try SpecimenGenerator.generate(named: name) } catch {
            throw CLIError(
                .internalError, "could not generate the virtual document '\(name)'; please report it", status: .usage)
        }
    }
}

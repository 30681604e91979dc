public import ISO7816
public import MRTDCrypto
internal import MRTDSecureMessaging

/// How many bytes one READ BINARY asks for (docs/architecture.md §6): the largest the path allows.
///
/// - Short APDUs under secure messaging: at most 223 plaintext bytes with AES and 231 with 3DES fit a
///   256-byte response (`SecureMessagingSession.maxShortResponsePlaintext`); without SM, 256.
/// - Extended length, when both the reader path and the chip accept it: as much as the reader's
///   response buffer holds after the secure-messaging overhead.
/// - Stepped down when the chip answers 6700 (wrong length), 6Cxx (exact length in SW2) or returns
///   fewer bytes than asked without reaching the end of the file.
public struct ChunkPolicy: Sendable, Hashable {
    public private(set) var current: Int
    public let extended: Bool

    /// Secure-messaging overhead of an extended protected response: DO'87' header (1 + 3 + 1),
    /// up to one block of padding, DO'99' (4), DO'8E' (10), SW (2), rounded up generously.
    static let extendedOverhead = 48

    public init(cipher: CipherAlgorithm?, extended: Bool, maxResponseSize: Int) {
        self.extended = extended
        if extended {
            let room = min(maxResponseSize, 65538) - Self.extendedOverhead
            if let cipher {
                let block = cipher.blockSize
                // plaintext p is padded to the next multiple of the block size (always at least one byte of padding)
                current = max(
                    SecureMessagingSession.maxShortResponsePlaintext(cipher: cipher), (room / block) * block - 1)
            } else {
                current = max(256, min(room, 65536))
            }
        } else if let cipher {
            current = SecureMessagingSession.maxShortResponsePlaintext(cipher: cipher)
        } else {
            current = 256
        }
    }

    /// Fixed chunk (tests, reader profiles with known quirks).
    public init(fixed: Int, extended: Bool) {
        current = fixed
        self.extended = extended
    }

    /// The Ne to ask for when `remaining` bytes are left (nil = unknown: ask for a full chunk).
    public func ne(remaining: Int?) -> Int {
        guard let remaining else { return current }
        return max(1, min(current, remaining))
    }

    /// Whether an Ne needs an extended-length APDU.
    public func needsExtended(_ ne: Int) -> Bool { ne > 256 }

    /// Reacts to 6700 / 6Cxx; returns whether the chunk changed (so the same offset is retried).
    public mutating func stepDown(after sw: StatusWord) -> Bool {
        if sw.isWrongLe {
            let exact = sw.sw2 == 0 ? 256 : Int(sw.sw2)
            if exact < current {
                current = exact
                return true
            }
            return false
        }
        if sw == .wrongLength {
            let next: Int
            // never below 64: a chip that refuses 64-byte reads is broken, not picky
            if current > 223 { next = 223 } else if current > 128 { next = 128 } else { next = max(64, current / 2) }
            guard next < current else { return false }
            current = next
            return true
        }
        // A chip that returns fewer bytes than asked (9000) is simply followed at the new offset: asking
        // for more costs nothing, so the chunk is not reduced.
        return false
    }
}

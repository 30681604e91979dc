/// The MRZ check digit (ICAO 9303-3 §4.9): weights 7, 3, 1 over character values
/// (digits 0–9, A–Z = 10–35, filler '<' = 0), sum modulo 10.
public enum MRZCheckDigit {
    /// nil when the text contains a character outside 0–9, A–Z and '<'.
    public static func compute(_ text: String) -> Int? {
        let weights = [7, 3, 1]
        var sum = 0
        for (i, c) in text.utf8.enumerated() {
            let v: Int
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = Int(c - UInt8(ascii: "0"))
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = Int(c - UInt8(ascii: "A")) + 10
            case UInt8(ascii: "<"): v = 0
            default: return nil
            }
            sum += v * weights[i % 3]
        }
        return sum % 10
    }

    /// The check digit as the MRZ character.
    public static func character(_ text: String) -> Character? {
        compute(text).map { Character(String($0)) }
    }
}

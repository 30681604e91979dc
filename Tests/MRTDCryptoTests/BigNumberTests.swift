import Testing
import MRTDCrypto
import MRTDTestSupport

@Suite struct BigNumberTests {
    @Test func encoding() {
        #expect(BigNumber([0, 0, 1, 2]).bytes == [1, 2])
        #expect(BigNumber([]).bytes == [0])
        #expect(BigNumber([]).isZero)
        #expect(BigNumber(0x0102).bytes(width: 4) == [0, 0, 1, 2])
        #expect(BigNumber(UInt64(255)).bitCount == 8)
        #expect(BigNumber(UInt64(256)).bitCount == 9)
        #expect(BigNumber(0).bitCount == 0)
        #expect(BigNumber(0x0F).description == "0x0F")
    }

    @Test func arithmetic() {
        let a = BigNumber(1000), b = BigNumber(7), m = BigNumber(13)
        #expect(a + b == BigNumber(1007))
        #expect(a - b == BigNumber(993))
        #expect(a * b == BigNumber(7000))
        let (q, r) = BigNumber.divide(a, b)
        #expect(q == BigNumber(142) && r == BigNumber(6))
        #expect(a.mod(m) == BigNumber(12))
        #expect(BigNumber.modAdd(a, b, m) == BigNumber(1007 % 13))
        #expect(BigNumber.modSub(b, a, m) == BigNumber(UInt64((7 - 1000 % 13 + 13) % 13)))
        #expect(BigNumber.modMul(a, b, m) == BigNumber(7000 % 13))
        #expect(BigNumber.modExp(BigNumber(3), BigNumber(200), BigNumber(1_000_000_007)) == BigNumber(modPow(3, 200, 1_000_000_007)))
        #expect(BigNumber.modInverse(BigNumber(3), BigNumber(7)) == BigNumber(5))
        #expect(BigNumber.modInverse(BigNumber(6), BigNumber(9)) == nil)
        #expect(BigNumber(5) < BigNumber(6) && !(BigNumber(6) < BigNumber(6)))
        #expect(BigNumber([1, 0]) > BigNumber([0xFF]))
        // wide values: (2^200 + 1) * (2^200 - 1) = 2^400 - 1
        let two200 = BigNumber([1] + [UInt8](repeating: 0, count: 25))
        let product = (two200 + BigNumber(1)) * (two200 - BigNumber(1))
        #expect(product.bytes == [UInt8](repeating: 0xFF, count: 50))
    }

    private func modPow(_ b: UInt64, _ e: UInt64, _ m: UInt64) -> UInt64 {
        var result: UInt64 = 1, base = b % m, exp = e
        while exp > 0 {
            if exp & 1 == 1 { result = result * base % m }
            base = base * base % m
            exp >>= 1
        }
        return result
    }
}

import MRTDCrypto
import MRTDTestSupport
import Testing

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
        let a = BigNumber(1000)
        let b = BigNumber(7)
        let m = BigNumber(13)
        #expect(a + b == BigNumber(1007))
        #expect(a - b == BigNumber(993))
        #expect(a * b == BigNumber(7000))
        let (q, r) = BigNumber.divide(a, b)
        #expect(q == BigNumber(142) && r == BigNumber(6))
        #expect(a.mod(m) == BigNumber(12))
        #expect(BigNumber.modAdd(a, b, m) == BigNumber(1007 % 13))
        #expect(BigNumber.modSub(b, a, m) == BigNumber(UInt64((7 - 1000 % 13 + 13) % 13)))
        #expect(BigNumber.modMul(a, b, m) == BigNumber(7000 % 13))
        #expect(
            BigNumber.modExp(BigNumber(3), BigNumber(200), BigNumber(1_000_000_007))
                == BigNumber(modPow(3, 200, 1_000_000_007)))
        #expect(BigNumber.modInverse(BigNumber(3), BigNumber(7)) == BigNumber(5))
        #expect(BigNumber.modInverse(BigNumber(6), BigNumber(9)) == nil)
        #expect(BigNumber(5) < BigNumber(6) && !(BigNumber(6) < BigNumber(6)))
        #expect(BigNumber([1, 0]) > BigNumber([0xFF]))
        // wide values: (2^200 + 1) * (2^200 - 1) = 2^400 - 1
        let two200 = BigNumber([1] + [UInt8](repeating: 0, count: 25))
        let product = (two200 + BigNumber(1)) * (two200 - BigNumber(1))
        #expect(product.bytes == [UInt8](repeating: 0xFF, count: 50))
    }

    /// Square roots modulo p ≡ 3 (mod 4) (brainpoolP256r1) and p ≡ 1 (mod 4) (P-224), and a non-residue.
    @Test(arguments: [NamedCurve.brainpoolP256r1, .secp224r1, .secp256r1])
    func squareRoots(_ named: NamedCurve) {
        let curve = ECCurve(named: named)
        let p = BigNumber(curve.p)
        // y² = x³ + ax + b at the generator: sqrt of the right-hand side is ±y
        let x = BigNumber(Array(curve.generator[1...curve.fieldSize]))
        let y = BigNumber(Array(curve.generator[(curve.fieldSize + 1)...]))
        let rhs = BigNumber.modAdd(
            BigNumber.modAdd(BigNumber.modExp(x, BigNumber(3), p), BigNumber.modMul(BigNumber(curve.a), x, p), p),
            BigNumber(curve.b), p)
        let root = BigNumber.modSqrt(rhs, p)
        #expect(root == y || root == p - y)
        // -1 is a non-residue modulo p ≡ 3 (mod 4)
        if !BigNumber.divide(p, BigNumber(4)).1.isZero && BigNumber.divide(p, BigNumber(4)).1 == BigNumber(3) {
            #expect(BigNumber.modSqrt(p - BigNumber(1), p) == nil)
        }
        #expect(BigNumber(7).isOdd && !BigNumber(8).isOdd)
    }

    private func modPow(_ b: UInt64, _ e: UInt64, _ m: UInt64) -> UInt64 {
        var result: UInt64 = 1
        var base = b % m
        var exp = e
        while exp > 0 {
            if exp & 1 == 1 { result = result * base % m }
            base = base * base % m
            exp >>= 1
        }
        return result
    }
}

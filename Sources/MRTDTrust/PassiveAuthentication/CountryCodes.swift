/// Issuing-state codes of the MRZ (ICAO 9303-3 §5 and Appendix) against the countryName of CSCA
/// certificates (ISO 3166-1 alpha-2, RFC 5280 / X.520 `PrintableString (SIZE (2))`).
///
/// The mapping has three parts:
///
/// 1. **Every ISO 3166-1 alpha-3 code** (249 codes, the ISO 3166-1 list as published) maps to its
///    alpha-2 code. ICAO 9303-3 §5 uses the ISO 3166-1 alpha-3 codes for states, so this covers
///    every state and territory.
/// 2. **ICAO-specific codes** that are not ISO alpha-3 codes, mapped where an alpha-2 value is
///    justified:
///    - `D` (Germany, 9303-3: the one-letter code Germany uses in the MRZ) → `DE`;
///    - `EUE` (European Union laissez-passer) → `EU` (ISO 3166 exceptionally reserved code);
///    - `UNO`, `UNA`, `UNK` (United Nations organisation, specialized agency, and UNMIK-issued
///      Kosovo documents) → `UN` (not an ISO 3166 code; the value a United Nations CSCA puts in C —
///      accepted on that basis, not on a published ISO assignment);
///    - `RKS` (Kosovo, ICAO-designated) → `XK` (the user-assigned code Kosovo's CSCA uses);
///    - `GBD`, `GBN`, `GBO`, `GBP`, `GBS` (British nationality classes; as issuing state only
///      `GBR` appears, but they are accepted) → `GB`;
///    - `UTO` (Utopia, the 9303 specimen state) → `UT`, and `ZZ` (ISO user-assigned, used by
///      specimen and test PKIs) for `UTO` too.
/// 3. **Codes with no justified alpha-2 equivalent**: organisations (`XPO` Interpol, `XOM` Order of
///    Malta, `XCC`, `XCE`, `XCO`, `XDC`, `XEC`, `XES`, `XIM`, `XMP`, `XBA`, and any other `X..`),
///    and the nationality-only codes `XXA`, `XXB`, `XXC`, `XXX` (stateless, refugees, unspecified),
///    which can never be an issuing state's CSCA. For those no mapping is made; the certificate
///    country is compared literally with the MRZ code (so an organisation's CSCA that writes its
///    three-letter code in C still matches), and the detail says no alpha-2 exists.
public enum CountryCodes {
    /// ISO 3166-1 alpha-3 → alpha-2 (ISO 3166-1, as distributed by the Debian iso-codes data set).
    static let iso3166: [String: String] = {
        let table =
            "ABWAW AFGAF AGOAO AIAAI ALAAX ALBAL ANDAD AREAE ARGAR ARMAM ASMAS ATAAQ ATFTF ATGAG AUSAU AUTAT AZEAZ BDIBI "
            + "BELBE BENBJ BESBQ BFABF BGDBD BGRBG BHRBH BHSBS BIHBA BLMBL BLRBY BLZBZ BMUBM BOLBO BRABR BRBBB BRNBN BTNBT "
            + "BVTBV BWABW CAFCF CANCA CCKCC CHECH CHLCL CHNCN CIVCI CMRCM CODCD COGCG COKCK COLCO COMKM CPVCV CRICR CUBCU "
            + "CUWCW CXRCX CYMKY CYPCY CZECZ DEUDE DJIDJ DMADM DNKDK DOMDO DZADZ ECUEC EGYEG ERIER ESHEH ESPES ESTEE ETHET "
            + "FINFI FJIFJ FLKFK FRAFR FROFO FSMFM GABGA GBRGB GEOGE GGYGG GHAGH GIBGI GINGN GLPGP GMBGM GNBGW GNQGQ GRCGR "
            + "GRDGD GRLGL GTMGT GUFGF GUMGU GUYGY HKGHK HMDHM HNDHN HRVHR HTIHT HUNHU IDNID IMNIM INDIN IOTIO IRLIE IRNIR "
            + "IRQIQ ISLIS ISRIL ITAIT JAMJM JEYJE JORJO JPNJP KAZKZ KENKE KGZKG KHMKH KIRKI KNAKN KORKR KWTKW LAOLA LBNLB "
            + "LBRLR LBYLY LCALC LIELI LKALK LSOLS LTULT LUXLU LVALV MACMO MAFMF MARMA MCOMC MDAMD MDGMG MDVMV MEXMX MHLMH "
            + "MKDMK MLIML MLTMT MMRMM MNEME MNGMN MNPMP MOZMZ MRTMR MSRMS MTQMQ MUSMU MWIMW MYSMY MYTYT NAMNA NCLNC NERNE "
            + "NFKNF NGANG NICNI NIUNU NLDNL NORNO NPLNP NRUNR NZLNZ OMNOM PAKPK PANPA PCNPN PERPE PHLPH PLWPW PNGPG POLPL "
            + "PRIPR PRKKP PRTPT PRYPY PSEPS PYFPF QATQA REURE ROURO RUSRU RWARW SAUSA SDNSD SENSN SGPSG SGSGS SHNSH SJMSJ "
            + "SLBSB SLESL SLVSV SMRSM SOMSO SPMPM SRBRS SSDSS STPST SURSR SVKSK SVNSI SWESE SWZSZ SXMSX SYCSC SYRSY TCATC "
            + "TCDTD TGOTG THATH TJKTJ TKLTK TKMTM TLSTL TONTO TTOTT TUNTN TURTR TUVTV TWNTW TZATZ UGAUG UKRUA UMIUM URYUY "
            + "USAUS UZBUZ VATVA VCTVC VENVE VGBVG VIRVI VNMVN VUTVU WLFWF WSMWS YEMYE ZAFZA ZMBZM ZWEZW"
        var d: [String: String] = [:]
        for item in table.split(separator: " ") where item.count == 5 {
            d[String(item.prefix(3))] = String(item.suffix(2))
        }
        return d
    }()

    /// ICAO 9303-3 codes that are not ISO alpha-3 codes, with the certificate countries they match.
    static let icaoSpecial: [String: [String]] = [
        "D": ["DE"],
        "EUE": ["EU"],
        "UNO": ["UN"], "UNA": ["UN"], "UNK": ["UN"],
        "RKS": ["XK"],
        "GBD": ["GB"], "GBN": ["GB"], "GBO": ["GB"], "GBP": ["GB"], "GBS": ["GB"],
        "UTO": ["UT", "ZZ"],
    ]

    /// The alpha-2 certificate countries an MRZ issuing-state code corresponds to (empty when no
    /// alpha-2 equivalent is justified). Filler `<` is ignored; case-insensitive.
    public static func certificateCountries(forIssuingState code: String) -> [String] {
        let c = code.uppercased().filter { $0 != "<" && !$0.isWhitespace }
        if let s = icaoSpecial[c] { return s }
        if let a2 = iso3166[c] { return [a2] }
        return []
    }

    /// Whether a certificate's countryName is the country of the MRZ issuing state.
    /// Accepts the alpha-2 mapping, and the literal code (some certificates carry alpha-3).
    public static func matches(certificateCountry: String, issuingState: String) -> Bool {
        let cert = certificateCountry.uppercased().filter { !$0.isWhitespace }
        let mrz = issuingState.uppercased().filter { $0 != "<" && !$0.isWhitespace }
        guard !cert.isEmpty, !mrz.isEmpty else { return false }
        if cert == mrz { return true }
        if certificateCountries(forIssuingState: mrz).contains(cert) { return true }
        // A certificate carrying an alpha-3 code of the same state (e.g. "DEU" for MRZ "D").
        if cert.count == 3, let a = certificateCountries(forIssuingState: cert).first {
            return certificateCountries(forIssuingState: mrz).contains(a)
        }
        return false
    }
}

/// Help texts of the `emrtd` command (DESIGN.md §4.1).
enum Help {
    static let main = """
    emrtd — read and verify ICAO 9303 ePassports and eID cards over PC/SC

    USAGE
      emrtd <command> [options]

    COMMANDS
      demo       read + verify the embedded virtual passport (no reader needed)
      readers    list PC/SC readers and their capabilities
      watch      print card insert/remove events
      read       read and verify a document on a reader
      verify     verify a saved read (evidence bundle) offline
      simulate   serve the virtual chip to pcscd through vpcd (virtual reader)
      trust      show what a trust configuration (CSCAs, master lists, CRLs) yields
      stepup     the Signicat ReuseID step-up glue (decode, start, run)
      bench      measure APDUs, bytes, CPU and modelled link time per phase (build with -c release)

    Run `emrtd <command> --help` for the options of a command.

    EXIT STATUS
      0 accepted / ok, 10 inconclusive, 11 rejected, 2 usage or bad input,
      3 reader/transport failure, 4 access control failed, 5 trust material unusable
    """

    static let access = """
    ACCESS (one of)
      --mrz 'LINE1LINE2[LINE3]'          the whole MRZ as scanned (TD1, TD2 or TD3)
      --document-number N --birth-date YYMMDD --expiry-date YYMMDD
      --can NNNNNN                       the card access number
      (--mrz - or --can - reads the value from standard input, keeping it out of the process list)
    """

    static let demo = """
    emrtd demo [--profile NAME] [--json] [--out DIR] [--trace FILE]

    Reads and verifies the embedded virtual passport in process, exactly as a real read over a reader
    would, with a freshly generated test PKI as the trust anchor. No reader needed.

    OPTIONS
      --profile NAME   which virtual document (default pace-gm-brainpool-aes128); --list-profiles lists them
      --json           print the JSON report (schema emrtd.report/1) instead of text
      --out DIR        write the evidence bundle (every file as read, transcripts, face image, report.json)
      --trace FILE     write a redacted APDU trace (headers, lengths, status words; never data or secrets)
      --can            use the CAN instead of the MRZ as the PACE password
    """

    static let read = """
    emrtd read [--reader NAME] ACCESS [--trust PATH]... [--files LIST] [--out DIR] [--json] [--trace FILE]
               [--allow-bac-fallback | --no-bac-fallback] [--aa-challenge HEX] [--timeout SECONDS]

    Waits for a document on the reader, reads it and verifies it.

    \(access)
    OPTIONS
      --reader NAME          reader name or a unique part of it (default: the first reader with a card,
                             else the first reader)
      --trust PATH           CSCA certificate (DER/PEM), folder, ICAO master list (.ml), or CRL; repeatable
      --ml-signer-root PATH  pinned root for master-list signatures (repeatable)
      --files LIST           comma-separated files, e.g. DG1,DG2,DG14,DG15 (default: all the SOD lists)
      --out DIR              write the evidence bundle
      --json                 print the JSON report
      --trace FILE           write a redacted APDU trace
      --allow-bac-fallback   use BAC when PACE fails although the chip offers it (default: off)
      --no-bac-fallback      never fall back to BAC
      --aa-challenge HEX     the 8-byte Active Authentication challenge (bind the read to a backend nonce)
      --timeout SECONDS      how long to wait for a card, and for it to be presented again (default 30)
      --virtual PROFILE|DIR  read a built-in virtual document (or a saved profile folder) in process instead
                             of a reader; a built-in profile's generated CSCA is trusted unless --trust is given
    """

    static let verify = """
    emrtd verify DIR [--trust PATH]... [--ml-signer-root PATH]... [--json] [--at ISO8601]

    Verifies a saved read (the evidence bundle written by --out) offline and prints the verdict.
    Live parts whose transcript is missing are marked notChecked.
    """

    static let simulate = """
    emrtd simulate [--profile NAME|DIR] [--vpcd HOST:PORT] [--save DIR] [--pull-after N]

    Serves the virtual chip to pcscd through vsmartcard's vpcd driver (reader "Virtual PCD 00 00" on port
    35963, "Virtual PCD 00 01" on 35964). Prints the access data (MRZ, CAN) of the simulated document
    and the path of its trust anchor.

    OPTIONS
      --profile NAME|DIR  a built-in profile or a saved profile folder
      --vpcd HOST:PORT    where vpcd listens (default 127.0.0.1:35963)
      --save DIR          save the generated document (files, keys, CSCA) to DIR and exit
      --pull-after N      drop the card after N APDUs (tests the resume path), then present it again
    """

    static let trust = """
    emrtd trust --trust PATH... [--ml-signer-root PATH]... [--json]

    Shows what a trust configuration yields: CSCAs per country with validity, master lists with their
    signer and verification result, CRLs, and every refused entry with its reason.
    """
}

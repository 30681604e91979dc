/// The `emrtd` command: argument parsing, wiring, output, exit codes.
public enum EMRTDCommand {
    public static func main() async {
        print("emrtd: not yet wired")
    }
}

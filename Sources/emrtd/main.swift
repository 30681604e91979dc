import EMRTDCLI

await EMRTDCommand.main()

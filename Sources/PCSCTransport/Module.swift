internal import CPCSCLite
internal import CPCSCLiteShims

// PCSCTransport — the only importer of pcsc-lite (DESIGN.md §2).
let emrtdPCSCMaxBufferSizeExtended = Int(emrtd_pcsc_max_buffer_size_extended())

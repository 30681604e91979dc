#ifndef EMRTDKIT_CPCSCLITE_SHIMS_H
#define EMRTDKIT_CPCSCLITE_SHIMS_H
#include <PCSC/winscard.h>
#include <PCSC/reader.h>
/* pcsc-lite macros that do not import into Swift. */
const SCARD_IO_REQUEST *emrtd_pcsc_pci_t0(void);
const SCARD_IO_REQUEST *emrtd_pcsc_pci_t1(void);
unsigned long emrtd_pcsc_max_buffer_size_extended(void);
#endif

#include "CPCSCLiteShims.h"
const SCARD_IO_REQUEST *emrtd_pcsc_pci_t0(void) { return SCARD_PCI_T0; }
const SCARD_IO_REQUEST *emrtd_pcsc_pci_t1(void) { return SCARD_PCI_T1; }
unsigned long emrtd_pcsc_max_buffer_size_extended(void) { return MAX_BUFFER_SIZE_EXTENDED; }

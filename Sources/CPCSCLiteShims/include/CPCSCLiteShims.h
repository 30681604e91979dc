#ifndef EMRTDKIT_CPCSCLITE_SHIMS_H
#define EMRTDKIT_CPCSCLITE_SHIMS_H
#include <PCSC/winscard.h>
#include <PCSC/reader.h>
/* pcsc-lite macros that do not import into Swift (function-like macros, address-of globals). */

/* Protocol control information for SCardTransmit (pcsclite.h SCARD_PCI_T0 / SCARD_PCI_T1). */
const SCARD_IO_REQUEST *emrtd_pcsc_pci_t0(void);
const SCARD_IO_REQUEST *emrtd_pcsc_pci_t1(void);
/* Largest transmit/receive buffer pcsc-lite accepts (pcsclite.h MAX_BUFFER_SIZE_EXTENDED). */
unsigned long emrtd_pcsc_max_buffer_size_extended(void);
/* Largest short-APDU buffer (pcsclite.h MAX_BUFFER_SIZE). */
unsigned long emrtd_pcsc_max_buffer_size(void);
/* PC/SC part 10 feature request control code (reader.h CM_IOCTL_GET_FEATURE_REQUEST = SCARD_CTL_CODE(3400)). */
unsigned long emrtd_pcsc_cm_ioctl_get_feature_request(void);
/* SCardGetAttrib identifiers (reader.h SCARD_ATTR_VALUE(class, tag)). */
unsigned long emrtd_pcsc_attr_maxinput(void);
unsigned long emrtd_pcsc_attr_vendor_name(void);
unsigned long emrtd_pcsc_attr_vendor_ifd_type(void);
unsigned long emrtd_pcsc_attr_vendor_ifd_version(void);
/* The pseudo reader name that reports reader arrival/removal in SCardGetStatusChange. */
const char *emrtd_pcsc_pnp_notification(void);
#endif

#include "CPCSCLiteShims.h"
const SCARD_IO_REQUEST *emrtd_pcsc_pci_t0(void) { return SCARD_PCI_T0; }
const SCARD_IO_REQUEST *emrtd_pcsc_pci_t1(void) { return SCARD_PCI_T1; }
unsigned long emrtd_pcsc_max_buffer_size_extended(void) { return MAX_BUFFER_SIZE_EXTENDED; }
unsigned long emrtd_pcsc_max_buffer_size(void) { return MAX_BUFFER_SIZE; }
unsigned long emrtd_pcsc_cm_ioctl_get_feature_request(void) { return CM_IOCTL_GET_FEATURE_REQUEST; }
unsigned long emrtd_pcsc_attr_maxinput(void) { return SCARD_ATTR_MAXINPUT; }
unsigned long emrtd_pcsc_attr_vendor_name(void) { return SCARD_ATTR_VENDOR_NAME; }
unsigned long emrtd_pcsc_attr_vendor_ifd_type(void) { return SCARD_ATTR_VENDOR_IFD_TYPE; }
unsigned long emrtd_pcsc_attr_vendor_ifd_version(void) { return SCARD_ATTR_VENDOR_IFD_VERSION; }
const char *emrtd_pcsc_pnp_notification(void) { return "\\\\?PnP?\\Notification"; }

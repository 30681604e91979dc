#include "CLibCryptoShims.h"
#include <openssl/opensslv.h>
unsigned long emrtd_openssl_version_number(void) { return OPENSSL_VERSION_NUMBER; }

#ifndef EMRTDKIT_CLIBCRYPTO_SHIMS_H
#define EMRTDKIT_CLIBCRYPTO_SHIMS_H
#include <stddef.h>
/* Wrappers for OpenSSL macros that do not import into Swift. Add one function per macro. */
unsigned long emrtd_openssl_version_number(void);
#endif

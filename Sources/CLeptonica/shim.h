#ifndef EMRTDKIT_CLEPTONICA_SHIM_H
#define EMRTDKIT_CLEPTONICA_SHIM_H
#include <leptonica/allheaders.h>
#endif

#ifndef EMRTDKIT_CTESSERACT_SHIM_H
#define EMRTDKIT_CTESSERACT_SHIM_H
#include <tesseract/capi.h>
#endif

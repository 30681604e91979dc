#ifndef EMRTDKIT_CFACEIMAGINGSHIMS_H
#define EMRTDKIT_CFACEIMAGINGSHIMS_H
#include <stddef.h>
#include <stdint.h>
#include <openjpeg.h>

/// A memory buffer behind an OpenJPEG stream. For reading, `data`/`length` are the input (not owned);
/// for writing, `data` is a caller-owned buffer of `capacity` bytes and `length` grows as the codec writes.
/// Writes past `capacity` fail (and set `overflowed`): the output size is bounded by the caller.
typedef struct emrtd_opj_buffer {
    uint8_t *data;
    size_t length;
    size_t capacity;
    size_t position;
    int overflowed;
} emrtd_opj_buffer;

/// A stream that reads `buffer` (which must outlive it). NULL when OpenJPEG cannot allocate one.
opj_stream_t *emrtd_opj_read_stream(emrtd_opj_buffer *buffer);
/// A stream that writes into `buffer` (which must outlive it). NULL when OpenJPEG cannot allocate one.
opj_stream_t *emrtd_opj_write_stream(emrtd_opj_buffer *buffer);

/// What OpenJPEG reported through its message callbacks: counts, and the first error and warning text.
typedef struct emrtd_opj_messages emrtd_opj_messages;
emrtd_opj_messages *emrtd_opj_messages_create(void);
void emrtd_opj_messages_free(emrtd_opj_messages *messages);
/// Routes the codec's error and warning messages into `messages` (info messages are dropped).
int emrtd_opj_capture_messages(opj_codec_t *codec, emrtd_opj_messages *messages);
int emrtd_opj_error_count(const emrtd_opj_messages *messages);
int emrtd_opj_warning_count(const emrtd_opj_messages *messages);
const char *emrtd_opj_first_error(const emrtd_opj_messages *messages);
const char *emrtd_opj_first_warning(const emrtd_opj_messages *messages);

#endif

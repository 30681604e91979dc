#include "CFaceImagingShims.h"
#include <stdlib.h>
#include <string.h>

/* ---- memory streams (OpenJPEG reads and writes through callbacks, never a file) ---- */

static OPJ_SIZE_T buffer_read(void *out, OPJ_SIZE_T count, void *user) {
    emrtd_opj_buffer *b = (emrtd_opj_buffer *)user;
    if (b->position >= b->length) return (OPJ_SIZE_T)-1; /* end of stream */
    size_t available = b->length - b->position;
    size_t n = count < available ? count : available;
    memcpy(out, b->data + b->position, n);
    b->position += n;
    return n;
}

static OPJ_SIZE_T buffer_write(void *in, OPJ_SIZE_T count, void *user) {
    emrtd_opj_buffer *b = (emrtd_opj_buffer *)user;
    if (b->position > b->capacity || count > b->capacity - b->position) {
        b->overflowed = 1;
        return (OPJ_SIZE_T)-1;
    }
    memcpy(b->data + b->position, in, count);
    b->position += count;
    if (b->position > b->length) b->length = b->position;
    return count;
}

static OPJ_OFF_T buffer_skip(OPJ_OFF_T count, void *user) {
    emrtd_opj_buffer *b = (emrtd_opj_buffer *)user;
    size_t limit = b->capacity ? b->capacity : b->length;
    if (count < 0) {
        if ((size_t)(-count) > b->position) return -1;
        b->position -= (size_t)(-count);
        return count;
    }
    if ((size_t)count > limit - b->position) {
        /* reading: skipping past the end is reported as the end; writing: out of bounds */
        if (b->capacity) { b->overflowed = 1; return -1; }
        OPJ_OFF_T skipped = (OPJ_OFF_T)(limit - b->position);
        b->position = limit;
        return skipped;
    }
    b->position += (size_t)count;
    return count;
}

static OPJ_BOOL buffer_seek(OPJ_OFF_T offset, void *user) {
    emrtd_opj_buffer *b = (emrtd_opj_buffer *)user;
    size_t limit = b->capacity ? b->capacity : b->length;
    if (offset < 0 || (size_t)offset > limit) return OPJ_FALSE;
    b->position = (size_t)offset;
    return OPJ_TRUE;
}

/* A stream over `buffer` in either direction, with the skip and seek both directions use. */
static opj_stream_t *buffer_stream(emrtd_opj_buffer *buffer, OPJ_BOOL input) {
    opj_stream_t *s = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, input);
    if (!s) return NULL;
    buffer->position = 0;
    buffer->overflowed = 0;
    opj_stream_set_user_data(s, buffer, NULL);
    opj_stream_set_skip_function(s, buffer_skip);
    opj_stream_set_seek_function(s, buffer_seek);
    return s;
}

opj_stream_t *emrtd_opj_read_stream(emrtd_opj_buffer *buffer) {
    buffer->capacity = 0; /* reading: bounded by length */
    opj_stream_t *s = buffer_stream(buffer, OPJ_TRUE);
    if (!s) return NULL;
    opj_stream_set_user_data_length(s, (OPJ_UINT64)buffer->length);
    opj_stream_set_read_function(s, buffer_read);
    return s;
}

opj_stream_t *emrtd_opj_write_stream(emrtd_opj_buffer *buffer) {
    buffer->length = 0; /* writing: bounded by capacity */
    opj_stream_t *s = buffer_stream(buffer, OPJ_FALSE);
    if (!s) return NULL;
    opj_stream_set_write_function(s, buffer_write);
    return s;
}

/* ---- messages ---- */

struct emrtd_opj_messages {
    int errors;
    int warnings;
    char first_error[256];
    char first_warning[256];
};

emrtd_opj_messages *emrtd_opj_messages_create(void) {
    return (emrtd_opj_messages *)calloc(1, sizeof(emrtd_opj_messages));
}

void emrtd_opj_messages_free(emrtd_opj_messages *messages) { free(messages); }

static void keep(char *slot, const char *msg) {
    if (slot[0] != 0 || msg == NULL) return;
    size_t n = strnlen(msg, 255);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r')) n--;
    memcpy(slot, msg, n);
    slot[n] = 0;
}

static void on_error(const char *msg, void *user) {
    emrtd_opj_messages *m = (emrtd_opj_messages *)user;
    m->errors++;
    keep(m->first_error, msg);
}

static void on_warning(const char *msg, void *user) {
    emrtd_opj_messages *m = (emrtd_opj_messages *)user;
    m->warnings++;
    keep(m->first_warning, msg);
}

static void on_info(const char *msg, void *user) { (void)msg; (void)user; }

int emrtd_opj_capture_messages(opj_codec_t *codec, emrtd_opj_messages *messages) {
    return opj_set_error_handler(codec, on_error, messages) && opj_set_warning_handler(codec, on_warning, messages) &&
           opj_set_info_handler(codec, on_info, messages);
}

int emrtd_opj_error_count(const emrtd_opj_messages *m) { return m->errors; }
int emrtd_opj_warning_count(const emrtd_opj_messages *m) { return m->warnings; }
const char *emrtd_opj_first_error(const emrtd_opj_messages *m) { return m->first_error; }
const char *emrtd_opj_first_warning(const emrtd_opj_messages *m) { return m->first_warning; }

/*
 * formats.h — the log formats' interface lives in formats/formats.h; this
 * name stays for the files that still include it.
 */
#include "formats/formats.h"

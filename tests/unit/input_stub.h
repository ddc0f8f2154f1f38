/* input_stub.h - input_error and input_warning for a unit test that links a part of the
 * tools without their CSV reader (input.c): each message is kept in unit_msg, as
 * "PATH:LINE: message", so that a check can read it; unit_msgs counts them. */
#ifndef UNIT_INPUT_STUB_H
#define UNIT_INPUT_STUB_H

#include <stdarg.h>
#include <stdio.h>
#include "input.h"

static char unit_msg[512];
static int unit_msgs;

static void unit_keep(const char *path, unsigned long lineno, const char *fmt, va_list ap)
{
	int o = snprintf(unit_msg, sizeof(unit_msg), "%s:%lu: ", path, lineno);

	vsnprintf(unit_msg + o, sizeof(unit_msg) - (size_t)o, fmt, ap);
	unit_msgs++;
}

void input_error(const char *path, unsigned long lineno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	unit_keep(path, lineno, fmt, ap);
	va_end(ap);
}

void input_warning(const char *path, unsigned long lineno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	unit_keep(path, lineno, fmt, ap);
	va_end(ap);
}

#endif

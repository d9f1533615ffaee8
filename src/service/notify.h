/*
 * systemd's service notification protocol (sd_notify(3)) for `segscan serve` under
 * Type=notify with WatchdogSec= (scripts/segscan.service). With libsystemd at build time
 * (the Makefile defines SS_HAVE_LIBSYSTEMD) the messages go through sd_notify(); without
 * it through our own writer of the same documented datagram protocol (one AF_UNIX
 * datagram to $NOTIFY_SOCKET, a leading '@' naming an abstract socket). Outside systemd
 * ($NOTIFY_SOCKET unset) every call is a no-op.
 */
#ifndef SS_SERVICE_NOTIFY_H
#define SS_SERVICE_NOTIFY_H

#include <stdint.h>

/* Sends one message ("READY=1", "WATCHDOG=1", "STOPPING=1", "STATUS=..."; several may
 * be joined by '\n'). Returns 1 when sent, 0 when there is no notify socket, or a
 * negative errno. Thread-safe (one sendmsg per call). */
int ss_notify(const char *msg);

/* The watchdog interval systemd asks for ($WATCHDOG_USEC, for this process when
 * $WATCHDOG_PID is set), in microseconds; 0 when there is no watchdog. */
uint64_t ss_notify_watchdog_usec(void);

#endif

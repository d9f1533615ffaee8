/*
 * The live-cluster client's own configuration: the --kafka-config file, in the Java
 * clients' properties syntax (fmt/properties.h, as Kafka's tools read it with
 * java.util.Properties), mapped to what librdkafka takes: a JAAS line of the Java clients
 * (sasl.jaas.config=...PlainLoginModule required username="u" password="p";) becomes
 * sasl.username and sasl.password, and bootstrap.servers is left to --bootstrap-server.
 */
#ifndef SS_SOURCE_CLUSTER_CONF_H
#define SS_SOURCE_CLUSTER_CONF_H

#include <stddef.h>
#include <stdint.h>

struct ss_client_kv {
	char    *k, *v;
	uint32_t line;    /* where it was set, for librdkafka's refusal */
};

struct ss_client_conf {
	struct ss_client_kv *kv;
	uint32_t             n, cap;
};

/* Reads path (opened once, its mode checked on the descriptor: a file readable by group or
 * others is a warning through warn, since it usually holds a password). A usage error is
 * -EINVAL with err naming the file and line (an empty key, a JAAS line without username and
 * password, a malformed \uXXXX escape); a file that cannot be read, its errno. */
int  ss_client_conf_read(struct ss_client_conf *cc, const char *path, void (*warn)(void *, const char *),
			 void *warn_arg, char *err, size_t errlen);
void ss_client_conf_free(struct ss_client_conf *cc);

#endif

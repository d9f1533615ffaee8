package org.apache.kafka.common.utils;

/**
 * Compiled only into a harness whose broker borrows LocalTieredStorage from an older release
 * (build.sh KAFKA_LTS_FROM, pom profile lts-compat): Kafka 4.4.0 moved LogContext to
 * org.apache.kafka.common.utils.internals, and LocalTieredStorage 4.3.1 still links the old
 * name (new LogContext(String), logger(Class)). Nothing else of 4.3.1's test jar is missing
 * from 4.4.0 (jdeps over LocalTieredStorage and the classes it uses). Never on the class path
 * of a release that has the class itself.
 */
public class LogContext extends org.apache.kafka.common.utils.internals.LogContext {
    public LogContext(String logPrefix) {
        super(logPrefix);
    }

    public LogContext() {
        super();
    }
}

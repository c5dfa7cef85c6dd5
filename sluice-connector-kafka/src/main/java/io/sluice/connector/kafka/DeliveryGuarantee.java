package io.sluice.connector.kafka;

/** What the Kafka sink promises its readers. */
public enum DeliveryGuarantee {
    /**
     * Every record once, visible to {@code read_committed} consumers when the checkpoint that covers it
     * completes (the checkpoint interval is the output latency). Needs a transactional-id prefix.
     */
    EXACTLY_ONCE,
    /**
     * Every record at least once, visible at once: records since the last completed checkpoint are
     * written again after a restart. The sink flushes at every checkpoint, so nothing before it is lost.
     */
    AT_LEAST_ONCE
}

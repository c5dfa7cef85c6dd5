package io.sluice.connector.kafka;

/**
 * The transaction of {@code slot} that holds a {@link KafkaCommittable}'s records already (one generation
 * of the slot): the committer commits it instead of writing the records again. Only in memory, never in a
 * checkpoint: a committable restored from a checkpoint has none and is written again.
 */
record OpenTransaction(TransactionSlot slot, long generation) {
    @Override
    public String toString() {
        return slot.transactionalId() + "#" + generation;
    }
}

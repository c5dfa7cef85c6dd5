package io.sluice.connector.kafka;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.concurrent.Futures;
import io.sluice.config.Durations;
import io.sluice.util.Throwables;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an exactly-once Kafka sink subtask checks when it starts, each failing with a message that says
 * what to change; and the lingering transactions of its ids it aborts. Runs once, on the task thread,
 * before the first record; every call is bounded by the sink's startup timeout.
 */
final class KafkaSinkStartupChecks {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSinkStartupChecks.class);
    /**
     * A marker of another job younger than this (beyond the checkpoint interval) means that job still
     * commits through the prefix: a running job commits at least once per checkpoint interval with output.
     */
    static final Duration CLASH_GRACE = Duration.ofSeconds(10);

    private final KafkaSink<?> sink;
    private final RuntimeContext context;
    private final String name;

    KafkaSinkStartupChecks(KafkaSink<?> sink, RuntimeContext context) {
        this.sink = sink;
        this.context = context;
        this.name = sink.describe(context);
    }

    void run() throws Exception {
        try (Admin admin = Admin.create(sink.adminProperties())) {
            long timeout = sink.startupTimeout.toMillis();
            Collection<Node> nodes;
            try {
                nodes = admin.describeCluster().nodes().get(timeout, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException | ExecutionException e) {
                throw new KafkaUnavailableException(name + ": no broker of " + sink.bootstrapServers + " answered within "
                        + Durations.describe(sink.startupTimeout) + " (" + rootMessage(e) + "). Check bootstrapServers and that"
                        + " the brokers run and are reachable from this task manager; the job is restarted by its"
                        + " restart strategy", e);
            }
            checkTopic(admin, timeout);
            checkTransactionTimeout(admin, nodes, timeout);
            checkPrefixNotUsedByAnotherJob(admin, timeout);
            abortLingeringTransactions(admin, timeout);
        }
    }

    private void checkTopic(Admin admin, long timeout) throws Exception {
        try {
            admin.describeTopics(List.of(sink.topic)).allTopicNames().get(timeout, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (Futures.unwrap(e) instanceof UnknownTopicOrPartitionException) {
                throw new UnknownKafkaTopicException(name + ": topic '" + sink.topic + "' does not exist at "
                        + sink.bootstrapServers + ". Create it (its partitions and replication are yours to choose),"
                        + " or correct the topic name");
            }
            throw e;
        }
    }

    /** The timeout must be accepted by the brokers, and must outlast a checkpoint interval plus a restart. */
    void checkTransactionTimeout(Admin admin, Collection<Node> nodes, long timeout) throws Exception {
        Node any = nodes.iterator().next();
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(any.id()));
        Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(broker)).all()
                .get(timeout, TimeUnit.MILLISECONDS);
        ConfigEntry max = configs.get(broker).get("transaction.max.timeout.ms");
        long brokerMax = max == null || max.value() == null ? 900_000 : Long.parseLong(max.value());
        checkTransactionTimeout(name, sink.transactionTimeout, brokerMax, context.checkpointInterval(),
                context.maxRestartDelay());
    }

    static void checkTransactionTimeout(String name, Duration configured, long brokerMaxMillis,
                                        Duration checkpointInterval, Duration maxRestartDelay) {
        if (configured.toMillis() > brokerMaxMillis) {
            throw new KafkaSinkException(name + ": the transaction timeout " + configured.toMillis() + " ms is above the"
                    + " brokers' transaction.max.timeout.ms (" + brokerMaxMillis + " ms), so the brokers would refuse every"
                    + " transaction. Lower it with KafkaSink.builder().transactionTimeout(...) to at most " + brokerMaxMillis
                    + " ms, or raise transaction.max.timeout.ms on the brokers");
        }
        if (checkpointInterval != null) {
            Duration needed = checkpointInterval.plus(maxRestartDelay);
            if (configured.compareTo(needed) < 0) {
                throw new KafkaSinkException(name + ": the transaction timeout " + configured.toMillis() + " ms is shorter"
                        + " than the checkpoint interval (" + checkpointInterval.toMillis() + " ms) plus the restart"
                        + " strategy's longest delay (" + maxRestartDelay.toMillis() + " ms) = " + needed.toMillis()
                        + " ms: a commit stalled that long (a broker outage, a restart) would be aborted by the broker and written"
                        + " again, over and over. Raise it with"
                        + " KafkaSink.builder().transactionTimeout(...) to at least " + needed.toMillis() + " ms (and at"
                        + " most the brokers' transaction.max.timeout.ms), or checkpoint more often");
            }
        }
    }

    /**
     * A marker of this subtask's id written by another job within its checkpoint interval means it still runs;
     * unless that job is the one this job was restored from and its marker is not beyond the checkpoint restored.
     */
    private void checkPrefixNotUsedByAnotherJob(Admin admin, long timeout) throws Exception {
        String id = sink.transactionalId(context.subtaskIndex());
        CommitMarker marker = CommitMarker.read(admin, id, new TopicPartition(sink.topic, 0), timeout);
        if (marker.jobId() == null || marker.jobId().equals(context.jobId()) || context.jobId().isEmpty()) {
            return;
        }
        io.sluice.api.functions.RestoredCheckpoint from = context.restoredFrom();
        if (from != null && marker.jobId().equals(from.jobId()) && marker.checkpointId() <= from.checkpointId()) {
            // The job this one was restored from (sluice rescale, run --restore-from), and it committed nothing
            // after the checkpoint restored: its successor, not a second job writing through the prefix.
            LOG.info("{}: {} was last committed by job {} at checkpoint {}, the job whose checkpoint {} this job"
                    + " restored: going on from it", name, id, from.jobId(), marker.checkpointId(), from.checkpointId());
            return;
        }
        Duration window = (context.checkpointInterval() == null ? Duration.ZERO : context.checkpointInterval().multipliedBy(2))
                .plus(CLASH_GRACE);
        long age = System.currentTimeMillis() - marker.atMillis();
        if (age < window.toMillis()) {
            throw new KafkaSinkException(name + ": the transactional-id prefix '" + sink.transactionalIdPrefix
                    + "' is in use by job " + marker.jobId() + ", which committed through " + id + " " + age + " ms ago"
                    + " (this job is " + context.jobId() + "). Two running jobs must not share a prefix: they would fence"
                    + " and abort each other's transactions. Give this sink its own prefix"
                    + " (KafkaSink.builder().transactionalIdPrefix(...)); if job " + marker.jobId() + " has stopped,"
                    + " this job starts normally once its last commit is " + Durations.describe(window) + " old");
        }
    }

    /**
     * Aborts open transactions of this subtask's ids ({@code <prefix>-<s>} and its slot ids
     * {@code <prefix>-<s>-e<k>}, with {@code s % parallelism == subtask}, which covers ids of a higher
     * parallelism before): a crash leaves one open, and it would stall every {@code read_committed} consumer
     * of the topic until its timeout.
     */
    private void abortLingeringTransactions(Admin admin, long timeout) throws Exception {
        Collection<TransactionListing> listings;
        try {
            listings = admin.listTransactions().all().get(timeout, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            LOG.warn("{}: could not list transactions to find lingering ones ({}); they end at their timeout",
                    name, rootMessage(e));
            return;
        }
        List<String> lingering = new ArrayList<>();
        String prefix = sink.transactionalIdPrefix + "-";
        for (TransactionListing t : listings) {
            String id = t.transactionalId();
            if (!id.startsWith(prefix) || !isOpen(t.state())) {
                continue;
            }
            try {
                int s = Integer.parseInt(id.substring(prefix.length()).replaceFirst("-e[0-9]+$", ""));
                if (s % context.parallelism() == context.subtaskIndex()) {
                    lingering.add(id);
                }
            } catch (NumberFormatException notOurs) {
                // another sink's id that shares the prefix's start
            }
        }
        for (String id : lingering) {
            sink.initializedTransactionalProducer(id).close(java.time.Duration.ZERO); // fences the old producer, aborts its transaction
            LOG.info("{}: aborted the lingering transaction of {} (left open by an earlier attempt that crashed or was"
                    + " cut off)", name, id);
        }
    }

    private static boolean isOpen(TransactionState state) {
        return state == TransactionState.ONGOING || state == TransactionState.PREPARE_ABORT
                || state == TransactionState.PREPARE_COMMIT;
    }

    private static String rootMessage(Throwable t) {
        return Throwables.rootCause(t).toString();
    }
}

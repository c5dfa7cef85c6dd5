package io.sluice.compare.sluice;

import ch.qos.logback.classic.Level;
import io.sluice.compare.HarnessArgs;
import io.sluice.config.CheckpointingOptions;
import io.sluice.compare.Machine;
import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.WindowWorkload;
import io.sluice.compare.kafka.KafkaScenario;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.slf4j.LoggerFactory;

/**
 * The Sluice harness of the side-by-side comparison with Apache Flink: runs the selected
 * {@link Scenario}s in their enum order on Sluice in this JVM and writes the shared TSV result file
 * (system {@code sluice}), rewritten after every scenario. Progress goes to stdout as
 * {@code [sluice] <scenario> <variant>: ...}; a scenario that fails adds no rows, is reported on
 * stderr, and the next one runs.
 *
 * <pre>
 * java -Xmx2g -cp "sluice-compare/compare-sluice/target/classes:$(cat sluice-compare/compare-sluice/target/classpath.txt)" \
 *     io.sluice.compare.sluice.SluiceHarness --mode full|smoke --out results.tsv [--only status-during-stall,...]
 * </pre>
 *
 * <p>Exit status: 0 when every selected scenario produced its rows, 1 when one or more failed (the
 * file has the others), 2 for a usage error. Setting {@code -Dsluice.compare.logLevel=INFO}
 * shows the runtime's log (WARN by default).
 */
public final class SluiceHarness {
    public static final String SYSTEM = "sluice";

    private SluiceHarness() {}

    /**
     * What a run produced: the result set (also written to the file) and, for each scenario that failed, what
     * failed (the error and its causes, and where in the harness it was thrown), so that a test that runs the
     * harness can say why in its own failure message.
     */
    public record Outcome(Results results, Map<Scenario, String> errors) {
        public Outcome {
            errors = Collections.unmodifiableMap(new LinkedHashMap<>(errors));
        }

        /** The scenarios that failed, in the order they ran. */
        public List<Scenario> failed() {
            return List.copyOf(errors.keySet());
        }
    }

    public static void main(String[] args) {
        HarnessArgs parsed;
        try {
            parsed = HarnessArgs.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("[sluice] " + e.getMessage());
            System.exit(2);
            return;
        }
        logLevel(System.getProperty("sluice.compare.logLevel", "WARN"));
        Outcome outcome;
        try {
            outcome = run(parsed);
        } catch (Exception e) {
            System.err.println("[sluice] The harness could not run: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
            return;
        }
        if (!outcome.failed().isEmpty()) {
            System.err.println("[sluice] " + outcome.failed().size() + " scenario(s) failed: "
                    + outcome.failed().stream().map(Scenario::id).toList() + "; their errors are above. "
                    + parsed.out() + " has the rows of the others.");
            System.exit(1);
        }
        System.exit(0); // the clusters' threads are daemons, but do not wait for stragglers
    }

    /** Runs the scenarios of {@code args} with progress on stdout and problems on stderr. */
    public static Outcome run(HarnessArgs args) throws IOException {
        return run(args, new Progress(System.out, System.err));
    }

    static Outcome run(HarnessArgs args, Progress progress) throws IOException {
        Plan plan = args.plan();
        Results results = new Results(SYSTEM);
        results.header("version", version());
        Machine.record(results, plan);
        results.header("sluice-setup", "every cluster in this JVM: 1 job manager, 2 task executors x 1 slot;"
                + " recovery scenarios: ZooKeeper HA (sluice-ha-zookeeper) on an in-process Curator TestingServer,"
                + " every client through the LatencyProxy; checkpoints on local disk behind FaultInjectingBlobStore"
                + " (D = latency added to each blob read); restart strategy fixed-delay 0 ms; task-local recovery"
                + " off; checkpoints.inline-state-threshold at its default (" + CheckpointingOptions.DEFAULT_INLINE_STATE_THRESHOLD + " bytes: smaller subtask state travels inside the checkpoint metadata); status call: DispatcherGateway.requestJobDetails; throughput and checkpoint-duration:"
                + " HA in memory; throughput-2tm: the same 2 task executors x 1 slot with networkDataExchange(true),"
                + " each with its own data server on 127.0.0.1, channels between them over TCP (credit-based flow"
                + " control), channels within one in memory");
        if (args.scenarios().contains(Scenario.KAFKA_EXACTLY_ONCE)) {
            KafkaScenario.describe(results, plan);
        }
        results.write(args.out());
        Map<Scenario, String> failed = new LinkedHashMap<>();
        long start = System.nanoTime();
        try (HarnessContext context = new HarnessContext(plan, progress)) {
            for (Scenario scenario : Scenario.values()) {
                if (!args.scenarios().contains(scenario)) {
                    continue;
                }
                progress.info("%s: %s (mode %s)", scenario.id(), scenario.title(), plan.mode());
                Results rows = new Results(SYSTEM);
                Map<String, String> notes = new LinkedHashMap<>();
                long scenarioStart = System.nanoTime();
                try {
                    runner(scenario, args).run(context, rows, notes);
                    for (Results.Row r : rows.rows()) {
                        results.add(scenario, r.variant(), r.metric(), r.value());
                    }
                    notes.forEach(results::header);
                    progress.info("%s done in %.1f s", scenario.id(), (System.nanoTime() - scenarioStart) / 1e9);
                } catch (Exception | AssertionError e) {
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                    failed.put(scenario, String.format(Locale.ROOT, "failed after %.1f s: %s",
                            (System.nanoTime() - scenarioStart) / 1e9, describe(e)));
                    if (scenario == Scenario.LARGE_STATE) {
                        // Its steps are independent measurements: keep the figures of those that succeeded.
                        for (Results.Row r : rows.rows()) {
                            results.add(scenario, r.variant(), r.metric(), r.value());
                        }
                        notes.forEach(results::header);
                    }
                    progress.problem("%s FAILED after %.1f s, %s: %s", scenario.id(),
                            (System.nanoTime() - scenarioStart) / 1e9, scenario == Scenario.LARGE_STATE
                                    ? rows.rows().size() + " row(s) of its steps that succeeded kept" : "no rows added", e);
                    progress.problem(e);
                }
                results.write(args.out());
                if (Thread.currentThread().isInterrupted()) {
                    break;
                }
            }
        }
        results.header("finished", Instant.now().toString());
        results.write(args.out());
        progress.info("all done in %.1f s; %d row(s) in %s%s", (System.nanoTime() - start) / 1e9,
                results.rows().size(), args.out(), failed.isEmpty() ? "" : "; FAILED: " + failed.keySet());
        return new Outcome(results, failed);
    }

    /** The error, each of its causes, and the harness frame nearest to where it was thrown. */
    static String describe(Throwable error) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            text.append(t == error ? "" : "; caused by ").append(t);
        }
        Arrays.stream(error.getStackTrace())
                .filter(frame -> frame.getClassName().startsWith("io.sluice.compare."))
                .findFirst()
                .ifPresent(frame -> text.append(" (at ").append(frame).append(')'));
        return text.toString();
    }

    private static ScenarioRunner runner(Scenario scenario, HarnessArgs args) {
        return switch (scenario) {
            case STATUS_DURING_STALL -> new StatusDuringStall();
            case TASK_FAILOVER -> new TaskFailover();
            case JM_FAILOVER -> new JmFailover();
            case THROUGHPUT -> Throughput.inMemory();
            case THROUGHPUT_2TM -> Throughput.overTcp();
            case CHECKPOINT_DURATION -> new CheckpointDuration();
            case WINDOW_TUMBLING -> new WindowThroughput(WindowWorkload.TUMBLING);
            case WINDOW_SESSION -> new WindowThroughput(WindowWorkload.SESSION);
            case KAFKA_EXACTLY_ONCE -> new KafkaExactlyOnce();
            case LARGE_STATE -> new SluiceLargeState(args.largeState(), args.largeStateStorage(),
                    args.largeStateSettings());
        };
    }

    /** The project version, from the resource Maven filters at build time. */
    static String version() {
        try (InputStream in = SluiceHarness.class.getResourceAsStream("harness.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static void logLevel(String level) {
        if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof ch.qos.logback.classic.Logger root) {
            root.setLevel(Level.toLevel(level, Level.WARN));
        }
    }
}

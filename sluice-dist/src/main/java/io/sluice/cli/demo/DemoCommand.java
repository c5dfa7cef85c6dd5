package io.sluice.cli.demo;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.cli.common.DurationConverter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code sluice demo}: the exactly-once demo. Parses and validates the options; {@link DemoRunner}
 * does the work.
 */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs a keyed counting job on an embedded local cluster, makes its tasks fail at seeded random"
                + " records, and checks afterwards that every key's count is exact: nothing lost, nothing"
                + " counted twice, although every failure restarts the job from its last checkpoint.",
            "Prints one progress line every 500 ms, then a summary and the check. Logs go to"
                + " ./sluice-data/logs/sluice.log; only warnings and errors are shown here."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            " 0:every key has exactly the expected count",
            " 1:the job finished but some key's count is wrong",
            " 2:the job was rejected, FAILED or was CANCELED (e.g. by --timeout)",
            "64:invalid option value",
            "70:unexpected error in the command"})
public final class DemoCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--records", paramLabel = "N", defaultValue = "2000000",
            description = "Records the source emits: the values 0..N-1. Default: ${DEFAULT-VALUE}.")
    private long records;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "64",
            description = "Distinct keys (value mod N), each with its own counter. Default: ${DEFAULT-VALUE}.")
    private int keys;

    @Option(names = "--parallelism", paramLabel = "N", defaultValue = "2",
            description = "Parallel subtasks of every operator. Default: ${DEFAULT-VALUE}.")
    private int parallelism;

    @Option(names = "--rate", paramLabel = "RECORDS_PER_SECOND", defaultValue = "400000",
            description = "Source rate over all subtasks; 0 = unlimited. Default: ${DEFAULT-VALUE}.")
    private long rate;

    @Option(names = "--failures", paramLabel = "N", defaultValue = "3",
            description = "Task failures to inject, each at a random record chosen from the seed."
                    + " Default: ${DEFAULT-VALUE}.")
    private int failures;

    @Option(names = "--seed", paramLabel = "SEED",
            description = "Seed that places the failures. Default: time-based; it is printed so a run can be repeated.")
    private Long seed;

    @Option(names = "--checkpoint-interval", paramLabel = "DURATION", defaultValue = "500 ms",
            converter = DurationConverter.class,
            description = "Time between checkpoints, e.g. 500 ms, 2 s. Default: ${DEFAULT-VALUE}.")
    private Duration checkpointInterval;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR", defaultValue = "./sluice-data/checkpoints",
            description = "Directory the checkpoints are written under. Default: ${DEFAULT-VALUE}.")
    private String checkpointDir;

    @Option(names = "--task-executors", paramLabel = "N", defaultValue = "2",
            description = "Task executors of the embedded cluster. Default: ${DEFAULT-VALUE}.")
    private int taskExecutors;

    @Option(names = "--slots", paramLabel = "N", defaultValue = "2",
            description = "Slots per task executor. Default: ${DEFAULT-VALUE}.")
    private int slots;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "5 min", converter = DurationConverter.class,
            description = "Cancel the job if it has not ended after this long (exit code 2). Default: ${DEFAULT-VALUE}.")
    private Duration timeout;

    @Override
    public Integer call() throws Exception {
        return new DemoRunner(validated(), spec.commandLine().getOut(), spec.commandLine().getErr()).run();
    }

    private DemoSettings validated() {
        require(records >= 1, "--records", records, "at least 1");
        require(keys >= 1, "--keys", keys, "at least 1");
        require(keys <= records, "--keys", keys, "at most --records (" + records + "), so that every key gets a record");
        int maxParallelism = StreamExecutionEnvironment.DEFAULT_MAX_PARALLELISM;
        require(parallelism >= 1 && parallelism <= maxParallelism, "--parallelism", parallelism,
                "between 1 and " + maxParallelism + " (the number of key groups)");
        require(rate >= 0, "--rate", rate, "0 (unlimited) or a positive number of records per second");
        require(failures >= 0, "--failures", failures, "0 or more");
        require(failures <= records, "--failures", failures,
                "at most --records (" + records + "): each failure needs its own record");
        require(!checkpointInterval.isZero(), "--checkpoint-interval", "0",
                "positive: without checkpoints there is nothing to restore after a failure");
        require(!checkpointDir.isBlank(), "--checkpoint-dir", "''", "a directory path");
        require(taskExecutors >= 1, "--task-executors", taskExecutors, "at least 1");
        require(slots >= 1, "--slots", slots, "at least 1");
        require(parallelism <= (long) taskExecutors * slots, "--parallelism", parallelism,
                "at most the cluster's slots (--task-executors " + taskExecutors + " x --slots " + slots + " = "
                        + (long) taskExecutors * slots + "); raise --task-executors or --slots, or lower --parallelism");
        require(!timeout.isZero(), "--timeout", "0", "positive");
        long effectiveSeed = seed != null ? seed : System.currentTimeMillis();
        return new DemoSettings(records, keys, parallelism, rate, failures, effectiveSeed, checkpointInterval,
                checkpointDir, taskExecutors, slots, timeout);
    }

    private void require(boolean valid, String option, Object value, String requirement) {
        if (!valid) {
            throw new ParameterException(spec.commandLine(),
                    "Invalid value for option '" + option + "': " + value + "; it must be " + requirement + ".");
        }
    }
}

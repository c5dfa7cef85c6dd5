package io.sluice.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.SluiceCli;
import io.sluice.cli.common.ExitCodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Runs {@code sluice demo} in-process, as {@link SluiceCli#main} would, and reads what it prints. */
class DemoCommandTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void smallDemoVerifiesExactlyOnceState() {
        int exitCode = execute("demo", "--records", "50000", "--rate", "200000", "--failures", "2", "--seed", "42",
                "--keys", "16", "--checkpoint-interval", "50 ms", "--checkpoint-dir", dir.toString());

        assertThat(exitCode).as("exit code; output:%n%s%nerrors:%n%s", out, err).isEqualTo(ExitCodes.OK);
        assertThat(out.toString())
                .contains("seed 42")
                .contains("Job FINISHED")
                .contains("All 16 keys have exactly the expected count (total 50000 records): exactly-once state verified.");
    }

    @Test
    void invalidOptionValueIsRejectedNamingTheOption() {
        int exitCode = execute("demo", "--parallelism", "0", "--checkpoint-dir", dir.toString());

        assertThat(exitCode).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString())
                .contains("--parallelism")
                .contains("it must be between 1 and 128")
                .contains("sluice demo --help");
        assertThat(out.toString()).as("nothing ran").isEmpty();
    }

    @Test
    void parallelismBeyondTheClusterSlotsSaysWhatToChange() {
        int exitCode = execute("demo", "--parallelism", "5", "--task-executors", "2", "--slots", "2");

        assertThat(exitCode).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("'--parallelism': 5").contains("raise --task-executors or --slots");
    }

    @Test
    void unparsableDurationNamesTheOptionAndTheAcceptedForms() {
        int exitCode = execute("demo", "--checkpoint-interval", "soon");

        assertThat(exitCode).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("--checkpoint-interval").contains("500 ms");
    }

    @Test
    void failurePositionsAreDistinctInRangeAndRepeatableFromTheSeed() {
        assertThat(DemoJob.failurePositions(1_000, 10, 7)).hasSize(10).allMatch(p -> p >= 0 && p < 1_000)
                .isEqualTo(DemoJob.failurePositions(1_000, 10, 7));
    }

    private int execute(String... args) {
        CommandLine cli = SluiceCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }
}

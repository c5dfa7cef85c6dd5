package io.sluice.api.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.functions.FakeRuntimeContext;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PrintSinkTest {

    @Test
    void prefixesTheSubtaskIndexWhenParallel() throws Exception {
        assertThat(printed(new PrintSink<>(), 2, 3, "hello")).isEqualTo("2> hello" + System.lineSeparator());
    }

    @Test
    void printsPlainLinesAtParallelismOne() throws Exception {
        assertThat(printed(new PrintSink<>(), 0, 1, 42L)).isEqualTo("42" + System.lineSeparator());
    }

    @Test
    void putsTheLabelFirst() throws Exception {
        assertThat(printed(new PrintSink<>("out"), 1, 2, "x")).isEqualTo("out:1> x" + System.lineSeparator());
        assertThat(printed(new PrintSink<>("out"), 0, 1, "x")).isEqualTo("out> x" + System.lineSeparator());
    }

    private static String printed(PrintSink<Object> sink, int subtask, int parallelism, Object value) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            sink.open(new FakeRuntimeContext(subtask, parallelism));
            sink.invoke(value);
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}

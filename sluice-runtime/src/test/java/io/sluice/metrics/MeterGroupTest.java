package io.sluice.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MeterGroupTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void closeRemovesOnlyTheGroupsMeters() {
        MeterGroup a = new MeterGroup(registry, Tags.of("job", "a"));
        MeterGroup b = new MeterGroup(registry, Tags.of("job", "b"));
        a.add(r -> Counter.builder("x").tags(a.tags()).register(r)).increment();
        b.add(r -> Counter.builder("x").tags(b.tags()).register(r)).increment();

        a.close();

        assertThat(registry.find("x").tag("job", "a").meters()).isEmpty();
        assertThat(registry.find("x").tag("job", "b").counter().count()).isEqualTo(1.0);
        a.add(r -> Counter.builder("y").tags(a.tags()).register(r));
        assertThat(registry.find("y").meters()).as("added after close: removed at once").isEmpty();
    }

    @Test
    void removeExistingLetsANewOwnerReplaceAFunctionMeter() {
        AtomicLong first = new AtomicLong(5);
        AtomicLong second = new AtomicLong(7);
        MeterGroup old = new MeterGroup(registry, Tags.of("subtask", "0"));
        old.add(r -> FunctionCounter.builder("records", first, AtomicLong::get).tags(old.tags()).register(r));

        MeterGroup next = new MeterGroup(registry, Tags.of("subtask", "0"));
        next.removeExisting("records");
        next.add(r -> FunctionCounter.builder("records", second, AtomicLong::get).tags(next.tags()).register(r));

        assertThat(registry.get("records").functionCounter().count()).isEqualTo(7.0);
    }
}

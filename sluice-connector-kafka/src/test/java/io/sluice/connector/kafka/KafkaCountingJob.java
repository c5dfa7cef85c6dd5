package io.sluice.connector.kafka;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.connector.kafka.format.Formats;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kafka → keyed count → Kafka, the job of the exactly-once tests: reads numbers as strings, counts per
 * {@code number % keys} in keyed state, writes {@code key,count} lines. Exactly once means: for every
 * key, each count 1..n appears once in the output.
 */
final class KafkaCountingJob {
    static final int KEYS = 8;

    private KafkaCountingJob() {}

    static void build(StreamExecutionEnvironment env, KafkaSource<String> source, KafkaSink<String> sink,
                      InjectedFailures failures) {
        env.fromSource(source, "kafka input")
                .map(Long::parseLong).returns(Serializers.LONG)
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new KeyedCountingJob.CountPerKey(KEYS, failures)).name("count per key")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .map(t -> t.f0() + "," + t.f1()).returns(Serializers.STRING)
                .sinkTo(sink, "kafka output");
    }

    static KafkaSource<String> source(String bootstrap, String topic) {
        return KafkaSource.<String>builder().bootstrapServers(bootstrap).topics(topic)
                .valueFormat(Formats.strings()).serializer(Serializers.STRING).boundedToLatest().build();
    }

    static List<String> numbers(int n) {
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(Integer.toString(i));
        }
        return out;
    }

    /** For every key, each count 1..n exactly once: nothing lost, nothing twice. */
    static void assertExactlyOnce(List<String> lines, int records, String why) {
        Map<Long, List<Long>> perKey = new HashMap<>();
        for (String line : lines) {
            String[] kv = line.split(",");
            perKey.computeIfAbsent(Long.parseLong(kv[0]), k -> new ArrayList<>()).add(Long.parseLong(kv[1]));
        }
        Map<Long, Long> expected = KeyedCountingJob.expectedCounts(records, KEYS);
        assertThat(perKey.keySet()).as(why).isEqualTo(expected.keySet());
        for (Map.Entry<Long, Long> e : expected.entrySet()) {
            List<Long> counts = perKey.get(e.getKey());
            assertThat(counts).as("%s: key %d", why, e.getKey()).doesNotHaveDuplicates()
                    .hasSize(e.getValue().intValue());
            assertThat(counts.stream().mapToLong(Long::longValue).max().orElse(0)).as(why).isEqualTo(e.getValue());
        }
        assertThat(lines).as(why).hasSize(records);
    }
}

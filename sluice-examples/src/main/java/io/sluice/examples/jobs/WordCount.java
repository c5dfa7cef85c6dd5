package io.sluice.examples.jobs;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.functions.Collector;
import io.sluice.api.functions.FlatMapFunction;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.ReduceFunction;
import io.sluice.core.serialization.Serializers;
import java.util.Locale;
import java.util.Set;

/**
 * Word count over a text file: {@code --input FILE} is read line by line, split into lower-case
 * words (letters and digits), and a running count per word (keyed state) is written as
 * {@code word,count} lines to part files under the directory {@code --output DIR}, one per sink
 * subtask. The sink sees every update, so a word's final count is its last line.
 *
 * <pre>
 *   sluice run sluice-examples.jar --class io.sluice.examples.jobs.WordCount -- --input book.txt --output counts
 * </pre>
 */
public final class WordCount {
    private WordCount() {}

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, Set.of("input", "output"));
        String input = args.required("input");
        String output = args.required("output");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        env.readTextFile(input)
                .flatMap(new Tokenizer()).name("split into words")
                .returns(Serializers.tuple2(Serializers.STRING, Serializers.LONG))
                .keyBy(new Word())
                .reduce(new Sum()).name("count per word")
                .map(new CsvLine()).returns(Serializers.STRING)
                .writeAsTextAtLeastOnce(output);
        env.execute("word count of " + input);
    }

    /** Splits a line into {@code (word, 1)} pairs. */
    public static final class Tokenizer implements FlatMapFunction<String, Tuple2<String, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap(String line, Collector<Tuple2<String, Long>> out) {
            for (String word : line.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
                if (!word.isEmpty()) {
                    out.collect(new Tuple2<>(word, 1L));
                }
            }
        }
    }

    /** The word of a pair. */
    public static final class Word implements KeySelector<Tuple2<String, Long>, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(Tuple2<String, Long> pair) {
            return pair.f0();
        }
    }

    /** {@code word,count}. */
    public static final class CsvLine implements io.sluice.api.functions.MapFunction<Tuple2<String, Long>, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String map(Tuple2<String, Long> pair) {
            return pair.f0() + "," + pair.f1();
        }
    }

    /** Adds the counts of one word. */
    public static final class Sum implements ReduceFunction<Tuple2<String, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<String, Long> reduce(Tuple2<String, Long> a, Tuple2<String, Long> b) {
            return new Tuple2<>(a.f0(), a.f1() + b.f1());
        }
    }
}

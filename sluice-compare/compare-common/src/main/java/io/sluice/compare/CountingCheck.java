package io.sluice.compare;

import java.util.Locale;
import java.util.Optional;

/**
 * The bounded check of the keyed counting job: records {@code 0 .. records - 1}, key {@code v % keys},
 * a count per key emitting the key's new count for every record. With {@code records} a multiple of
 * {@code keys}, an exact count gives every key exactly {@code n = records / keys} records, so the sink
 * receives {@code records} counts whose largest is {@code n} and whose sum is
 * {@code keys * n (n + 1) / 2}. Together these say that every key's count is exact: a key's emitted
 * counts are 1, 2, …, c<sub>k</sub>; a largest count of {@code n} means no c<sub>k</sub> exceeds n (no
 * record counted twice), and {@code records} counts in all then mean every c<sub>k</sub> is n (none
 * lost). Both harnesses' check sinks keep these three figures.
 *
 * @param records records of the bounded run
 * @param keys    distinct keys
 */
public record CountingCheck(long records, int keys) {

    public CountingCheck {
        if (keys <= 0 || records <= 0 || records % keys != 0) {
            throw new IllegalArgumentException("The counting check needs a positive number of records that is a"
                    + " multiple of the keys, not " + records + " records over " + keys + " keys");
        }
    }

    /** The count every key must end with. */
    public long perKey() {
        return records / keys;
    }

    /** The sum of every count the sink receives. */
    public long expectedSum() {
        long n = perKey();
        return keys * (n * (n + 1) / 2);
    }

    /**
     * What is wrong with what the check run's sink received, or empty if every key's count is exact.
     *
     * @param received counts the sink received
     * @param sum      their sum
     * @param max      the largest of them
     */
    public Optional<String> problem(long received, long sum, long max) {
        if (received == records && sum == expectedSum() && max == perKey()) {
            return Optional.empty();
        }
        return Optional.of(String.format(Locale.ROOT, "The bounded counting run over %d records and %d keys emitted"
                        + " %d counts summing to %d with a largest count of %d, but exact counts give %d counts"
                        + " summing to %d with a largest count of %d: records were lost or counted twice", records,
                keys, received, sum, max, records, expectedSum(), perKey()));
    }
}

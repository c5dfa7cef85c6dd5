package io.sluice.api.functions;

import java.io.Serializable;

/** One record in, one record out. */
@FunctionalInterface
public interface MapFunction<I, O> extends Serializable {
    O map(I value) throws Exception;
}

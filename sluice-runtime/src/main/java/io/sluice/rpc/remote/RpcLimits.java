package io.sluice.rpc.remote;

import io.sluice.config.Configuration;
import io.sluice.config.RpcOptions;

/**
 * The limits of one {@link RpcService}, read once from its configuration. Immutable.
 *
 * @param timeoutMillis        {@code rpc.timeout}: how long a request waits for its answer
 * @param connectTimeoutMillis {@code rpc.connect-timeout}: how long opening a connection may take
 * @param maxMessageSize       {@code rpc.max-message-size}: the largest frame sent or read, in bytes
 */
record RpcLimits(long timeoutMillis, long connectTimeoutMillis, int maxMessageSize) {

    static RpcLimits of(Configuration conf) {
        return new RpcLimits(conf.get(RpcOptions.TIMEOUT).toMillis(), conf.get(RpcOptions.CONNECT_TIMEOUT).toMillis(),
                conf.get(RpcOptions.MAX_MESSAGE_SIZE));
    }
}

package io.sluice.security.tls;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;

/**
 * Sits behind the TLS handler of one connection: counts the handshake, and when TLS fails (the peer
 * has no certificate the cluster trusts, speaks plain TCP, or does not trust ours) replaces the
 * exception with one that says so and what to check (a client's connection fails with it), and logs
 * it once for the connection (through a {@link RefusalLog}, so at most once per interval). A server closes the connection itself. Event-loop only.
 */
final class TlsHandshakeGuard extends ChannelInboundHandlerAdapter {
    private final String where;
    private final boolean serverSide;
    private final AtomicLong completed;
    private final AtomicLong failed;
    private final RefusalLog log;
    private boolean reported;

    TlsHandshakeGuard(String where, boolean serverSide, AtomicLong completed, AtomicLong failed, RefusalLog log) {
        this.where = where;
        this.serverSide = serverSide;
        this.completed = completed;
        this.failed = failed;
        this.log = log;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof SslHandshakeCompletionEvent done) {
            if (done.isSuccess()) {
                completed.incrementAndGet();
            } else {
                report(ctx, done.cause());
            }
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable tls = tlsCause(cause);
        if (tls == null) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        SSLException described = report(ctx, tls);
        if (serverSide) {
            ctx.close(); // logged above; the handlers behind need not log it again
        } else {
            ctx.fireExceptionCaught(described);
        }
    }

    private SSLException report(ChannelHandlerContext ctx, Throwable cause) {
        String message = serverSide
                ? "Refused a connection from " + ctx.channel().remoteAddress() + " to the " + where + ": TLS failed ("
                        + cause.getMessage() + "). The internal ports accept only peers with a certificate signed by"
                        + " a CA of security.internal.tls.trusted-certificates"
                : "TLS with " + where + " failed (" + cause.getMessage() + "): both sides need"
                        + " security.internal.tls.enabled: true and certificates signed by a CA the other side trusts"
                        + " (security.internal.tls.*)";
        if (!reported) {
            reported = true;
            failed.incrementAndGet();
            log.warn(message);
        }
        return new SSLException(message, cause);
    }

    private static Throwable tlsCause(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SSLException || c instanceof NotSslRecordException) {
                return c;
            }
            if (!(c instanceof DecoderException)) {
                return null;
            }
        }
        return null;
    }
}

package io.sluice.rest.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.rest.ErrorResponse;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's answer to requests it refuses before they reach a route (a malformed or ambiguous URI
 * such as an encoded {@code ..} or slash, headers too large, a broken request line): the same JSON
 * error body as every other error, never Jetty's HTML page. Stateless; Jetty's threads.
 */
final class JsonErrorHandler extends ErrorHandler {
    private static final ObjectMapper JSON = new ObjectMapper();

    JsonErrorHandler() {
        setShowStacks(false);
        setShowCauses(false);
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(body(code, message)), callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, "application/json");
        return ByteBuffer.wrap(body(status, reason));
    }

    static byte[] body(int code, String message) {
        String what = message == null || message.isBlank() ? "the request was refused" : message;
        String text = switch (code) {
            case 400 -> "Malformed request (" + what + "). Paths and parameters must not contain encoded '..', encoded"
                    + " slashes or control characters.";
            case 404 -> "No such endpoint; the endpoints are listed in GET /v1/openapi.json";
            case 413 -> "The request is larger than this server accepts (" + what + ")";
            case 431 -> "The request headers are larger than this server accepts";
            default -> "Request refused: " + what;
        };
        try {
            return JSON.writeValueAsBytes(new ErrorResponse(text, code));
        } catch (JsonProcessingException e) {
            return ("{\"error\":\"Request refused\",\"status\":" + code + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
    }
}

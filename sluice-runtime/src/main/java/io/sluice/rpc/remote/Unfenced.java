package io.sluice.rpc.remote;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a gateway method that a fenced endpoint answers whatever fencing token the call carries:
 * the way a caller learns the token to use (for example "which leader session is yours?"). Such a
 * method must not change state. Ignored for local (in-process) gateway objects.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Unfenced {
}

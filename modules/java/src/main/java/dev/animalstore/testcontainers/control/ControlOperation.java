package dev.animalstore.testcontainers.control;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The operation of the control API ({@code spec/admin.openapi.yaml}) that a client method calls, by its
 * {@code operationId}. The module's tests read the spec and fail when an operation has no such method.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ControlOperation {
    /** The spec's {@code operationId}. */
    String value();
}

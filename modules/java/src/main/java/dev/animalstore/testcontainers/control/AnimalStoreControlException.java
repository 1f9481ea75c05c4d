package dev.animalstore.testcontainers.control;

/**
 * A control API call the sandbox refused, with the HTTP status and the {@code code} and {@code message} of its
 * Error body.
 */
public class AnimalStoreControlException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;

    private final String code;

    private final String errorMessage;

    public AnimalStoreControlException(String request, int status, String code, String errorMessage) {
        super(request + " answered " + status + " " + code + ": " + errorMessage);
        this.status = status;
        this.code = code;
        this.errorMessage = errorMessage;
    }

    /** The HTTP status, e.g. 400. */
    public int status() {
        return status;
    }

    /** The Error body's machine-readable code, e.g. {@code invalid_body}; {@code unknown} when the body was no Error. */
    public String code() {
        return code;
    }

    /** The Error body's message (the whole body when it was no Error). */
    public String errorMessage() {
        return errorMessage;
    }
}

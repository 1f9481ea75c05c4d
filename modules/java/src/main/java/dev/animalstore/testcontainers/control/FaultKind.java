package dev.animalstore.testcontainers.control;

import com.fasterxml.jackson.annotation.JsonValue;

/** A broken answer a fault can give instead of a status. */
public enum FaultKind {
    /** Closes the connection with a TCP reset. */
    CONNECTION_RESET("connection-reset"),
    /** Closes the connection without a byte of answer. */
    EMPTY_RESPONSE("empty-response"),
    /** Answers with a body that is not valid JSON. */
    MALFORMED_BODY("malformed-body");

    private final String wireName;

    FaultKind(String wireName) {
        this.wireName = wireName;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }
}

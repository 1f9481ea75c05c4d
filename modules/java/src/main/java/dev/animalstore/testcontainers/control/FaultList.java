package dev.animalstore.testcontainers.control;

import java.util.List;

/** The answer of listFaults: a namespace's faults, oldest first. */
public record FaultList(int count, List<Fault> faults) {}

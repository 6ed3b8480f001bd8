package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.testing.TestWorkflowEnvironment;

/** The runbooks' search attributes, registered as an operator registers them (all Keyword). */
public final class TestSearchAttributes {

  private TestSearchAttributes() {}

  public static void registerOn(TestWorkflowEnvironment env) {
    RunbookSearchAttributes.ALL.forEach(
        key ->
            env.registerSearchAttribute(
                key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
  }
}

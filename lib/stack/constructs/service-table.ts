// The service's single DynamoDB table, built from the shared table definition, or an existing one (a restored table) named instead.
import type { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, type ITable, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { table as tableDefinition, type TableDefinition } from '#platform/table/definition.ts';

/**
 * Context key for an existing table the stack uses instead of its own: `-c table=<name>`, the cut-over to a table
 * restored from point-in-time recovery (docs/operations.md, "Restoring the table to a point in time").
 */
export const existingTableContextKey = 'table';

export interface ServiceTableProps {
  readonly definition: TableDefinition;
  /** False only for throwaway stages, so a production table cannot be dropped by a stack update or deletion. */
  readonly deletionProtection: boolean;
  readonly removalPolicy: RemovalPolicy;
  /** A customer-managed key; without one, DynamoDB encrypts with its AWS-owned key. */
  readonly encryptionKey?: IKey;
}

const projections = {
  KEYS_ONLY: ProjectionType.KEYS_ONLY,
  ALL: ProjectionType.ALL,
} as const satisfies Record<TableDefinition['indexes'][number]['projection'], ProjectionType>;

export class ServiceTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: ServiceTableProps) {
    super(scope, id);
    const { definition } = props;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: definition.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: definition.ttlAttribute,
      // Traffic is bursty (batch ingestion) and small on average: paying per request beats provisioning for peaks.
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
      ...(props.encryptionKey
        ? { encryption: TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.encryptionKey }
        : { encryption: TableEncryption.DEFAULT }),
    });

    for (const index of definition.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: projections[index.projection],
      });
    }
  }
}

/** DynamoDB's rule for a table name: 3 to 255 letters, digits, `_`, `.` and `-`. */
const tableNamePattern = /^[a-zA-Z0-9_.-]{3,255}$/;

export interface ExistingServiceTableProps {
  /** The table's name as DynamoDB knows it: a table restored from point-in-time recovery, say. */
  readonly tableName: string;
  readonly definition: TableDefinition;
  /** The customer-managed key the table is encrypted with, when the stack is given one. */
  readonly encryptionKey?: IKey;
}

/**
 * A table the stack uses but does not own, with the definition's indexes so that grants on `<table>/index/*` and the
 * index metrics name them. A name DynamoDB would refuse fails the synth here rather than the deploy.
 */
export function existingServiceTable(scope: Construct, id: string, props: ExistingServiceTableProps): ITable {
  if (!tableNamePattern.test(props.tableName)) {
    throw new Error(
      `"${props.tableName}" is not a DynamoDB table name (3 to 255 characters, letters, digits, _ . and - only): ` +
        "give the restored table's name as it is, e.g. -c table=PricingService-DataTable-restored-20261127",
    );
  }
  return Table.fromTableAttributes(scope, id, {
    tableName: props.tableName,
    globalIndexes: props.definition.indexes.map((index) => index.name),
    encryptionKey: props.encryptionKey,
  });
}

/**
 * The stack's own table, or the existing one named. The stack changes nothing on an existing table: its TTL, point-in-
 * time recovery, deletion protection and tags are the operator's to set (docs/operations.md).
 */
export function serviceTableOrExisting(
  scope: Construct,
  id: string,
  existingTableName: unknown,
  own: { deletionProtection: boolean; removalPolicy: RemovalPolicy; encryptionKey?: IKey },
): ITable {
  if (existingTableName === undefined || existingTableName === '') {
    return new ServiceTable(scope, id, { definition: tableDefinition, ...own }).table;
  }
  if (typeof existingTableName !== 'string') {
    throw new Error(`-c ${existingTableContextKey}= takes a table name, not ${JSON.stringify(existingTableName)}`);
  }
  return existingServiceTable(scope, id, { tableName: existingTableName, definition: tableDefinition, encryptionKey: own.encryptionKey });
}

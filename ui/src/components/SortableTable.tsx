// A table of one page of a list the server sorts: TanStack Table draws the
// rows and headers; a click anywhere on a header cell (a button that fills
// it, so Tab and Enter work too) asks the server for that order (the `sort`
// key of the URL: a column id, "-" before it for descending).
// Sorting the page in the browser would order 50 of thousands of rows.

import {
  flexRender,
  getCoreRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
} from "@tanstack/react-table";

/** A `sort` value ("name", "-started") as TanStack Table's sorting state. */
export function sortingOf(sort: string | null | undefined): SortingState {
  if (!sort) return [];
  return [{ id: sort.replace(/^-/, ""), desc: sort.startsWith("-") }];
}

/** TanStack Table's sorting state as a `sort` value (null: the server's default). */
export function sortOf(sorting: SortingState): string | null {
  const first = sorting[0];
  return first ? `${first.desc ? "-" : ""}${first.id}` : null;
}

/**
 * TanStack Table sorts only columns with an accessor: each column the server
 * sorts by gets one (its value is never read: the rows come sorted).
 */
function sortable<T>(column: ColumnDef<T, unknown>): ColumnDef<T, unknown> {
  if (column.enableSorting === false || "accessorFn" in column) return column;
  return { ...column, accessorFn: () => null } as ColumnDef<T, unknown>;
}

interface Props<T> {
  rows: T[];
  columns: ColumnDef<T, unknown>[];
  /** The URL's sort value. */
  sort: string | null;
  onSort: (sort: string | null) => void;
  rowId: (row: T) => string;
  rowProps?: (row: T) => React.HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string>;
  /** A row shown under a row (a failed run's error), spanning every column. */
  below?: (row: T) => React.ReactNode;
  className?: string;
  testid?: string;
  busy?: boolean;
}

export function SortableTable<T>({ rows, columns, sort, onSort, rowId, rowProps, below, className, testid, busy }: Props<T>) {
  const sorting = sortingOf(sort);
  const table = useReactTable({
    data: rows,
    columns: columns.map(sortable),
    getCoreRowModel: getCoreRowModel(),
    getRowId: rowId,
    manualSorting: true,
    enableMultiSort: false,
    sortDescFirst: false,
    state: { sorting },
    onSortingChange: (update) => onSort(sortOf(typeof update === "function" ? update(sorting) : update)),
  });
  const width = table.getVisibleLeafColumns().length;
  return (
    <table className={`table ${className ?? ""}`} data-testid={testid} aria-busy={busy}>
      <thead>
        {table.getHeaderGroups().map((group) => (
          <tr key={group.id}>
            {group.headers.map((header) => {
              const sorted = header.column.getIsSorted();
              const canSort = header.column.getCanSort();
              const label = flexRender(header.column.columnDef.header, header.getContext());
              return (
                <th
                  key={header.id}
                  aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                  className={canSort ? "sortable" : undefined}
                  data-column={header.column.id}
                >
                  {canSort ? (
                    <button type="button" className="sort-button" onClick={header.column.getToggleSortingHandler()}>
                      {label}
                      <span className="sort-mark" aria-hidden>
                        {sorted === "asc" ? " ▲" : sorted === "desc" ? " ▼" : " ↕"}
                      </span>
                    </button>
                  ) : (
                    label
                  )}
                </th>
              );
            })}
          </tr>
        ))}
      </thead>
      <tbody>
        {table.getRowModel().rows.map((row) => {
          const extra = below?.(row.original);
          return (
            <RowWithExtra key={row.id} extra={extra} width={width} props={rowProps?.(row.original)}>
              {row.getVisibleCells().map((cell) => (
                <td key={cell.id} data-column={cell.column.id}>
                  {flexRender(cell.column.columnDef.cell, cell.getContext())}
                </td>
              ))}
            </RowWithExtra>
          );
        })}
      </tbody>
    </table>
  );
}

function RowWithExtra({
  children,
  extra,
  width,
  props,
}: {
  children: React.ReactNode;
  extra: React.ReactNode;
  width: number;
  props?: React.HTMLAttributes<HTMLTableRowElement>;
}) {
  return (
    <>
      <tr {...props}>{children}</tr>
      {extra ? (
        <tr className="row-extra">
          <td colSpan={width}>{extra}</td>
        </tr>
      ) : null}
    </>
  );
}

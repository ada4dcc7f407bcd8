/** Bus cursors are part of the control protocol: they live with it in src/common/protocol/control. */
export { CursorErrors, type CursorDialect, CursorParam, formatCursor, type ParsedCursor, parseCursor } from '../../../common/protocol/control/busCursor.ts';

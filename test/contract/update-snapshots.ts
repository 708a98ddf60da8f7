/**
 * `npm run contract:update`: regenerates the committed contract snapshots from the code. Run it
 * deliberately after a reviewed API change; the contract tests compare against these files.
 */
import { generateOpenApiDocuments, generateSdl } from '../../src/contract-documents.ts';
import { SNAPSHOT_FILES, writeOpenApiSnapshot, writeSdlSnapshot } from './snapshots.ts';

const documents = await generateOpenApiDocuments();
for (const [version, document] of documents) {
  writeOpenApiSnapshot(version, document);
  console.log(`wrote ${SNAPSHOT_FILES.openapi(version)}`);
}
writeSdlSnapshot(generateSdl());
console.log(`wrote ${SNAPSHOT_FILES.sdl}`);

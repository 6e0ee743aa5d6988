// functions.h — the SQL functions and the extract_drugs table (registered in scribe_ext.cpp).
#pragma once

struct sqlite3;
struct sqlite3_context;
struct sqlite3_value;

namespace scribe::sql {

void ScribeVersion(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void ScribeLoadCorpus(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void RxnormLookup(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void GradeSubmission(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void BadgeSvgFn(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void ScribeMethodology(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void ScribeT95(sqlite3_context* ctx, int argc, sqlite3_value** argv);

// Registers the eponymous table-valued function extract_drugs(text).
int RegisterExtractDrugs(sqlite3* db);
// Registers the eponymous table-valued function scribe_find(text, phrase) (find_vtab.cpp).
int RegisterScribeFind(sqlite3* db);

}  // namespace scribe::sql

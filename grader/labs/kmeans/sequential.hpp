#pragma once

namespace kmeans_grading {

// The sequential baseline every speedup is measured against (sequential.cpp): the plain
// single-threaded k-means the handout shows. Returns the number of iterations run.
int sequential(const double* objects, int numObjs, int numCoords, int numClusters, double threshold, int maxLoops,
               int* membership, double* clusters);

}  // namespace kmeans_grading

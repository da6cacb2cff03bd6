#pragma once
#include "weft/core/low/low.h"
